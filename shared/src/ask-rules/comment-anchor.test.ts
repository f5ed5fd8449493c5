import { describe, expect, test } from "bun:test";
import type { ReviewComment } from "../generated/types.ts";
import { anchorLabel, foldComments } from "./comment-anchor.ts";
import { aReviewOfEveryBlock } from "../testing/sample-asks.ts";

const review = aReviewOfEveryBlock();
const c = (anchor: Omit<ReviewComment, "body">, body = "Rename it."): ReviewComment => ({ ...anchor, body });

describe("comments folded into words, for a reader of an older revision", () => {
  test("each comment says where it is: file, side and line; code file and line; block", () => {
    const { content } = review.prompt;
    expect(anchorLabel(content, c({ block: 2, file: "src/a.ts", side: "old", line: 2 }))).toBe("src/a.ts, old line 2 (block 3)");
    expect(anchorLabel(content, c({ block: 1, line: 3 }))).toBe("q.sql, line 3 (block 2)");
    expect(anchorLabel(content, c({ block: 0 }))).toBe("block 1 (markdown)");
  });

  test("the overall words come first, then every comment under its anchor, none dropped", () => {
    const text = foldComments(review.prompt.content, "Close, but not yet.", [c({ block: 1, line: 2 }, "Two\nlines."), c({ block: 0 }, "Say why.")]);
    expect(text).toBe("Close, but not yet.\n\nComments on the review:\n- q.sql, line 2 (block 2): Two\n  lines.\n- block 1 (markdown): Say why.");
  });
});
