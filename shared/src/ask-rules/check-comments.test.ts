import { describe, expect, test } from "bun:test";
import type { Reply, ReviewComment } from "../generated/types.ts";
import type { ProblemCode } from "../problems.ts";
import { checkReply } from "./check-reply.ts";
import { codeOf, aReviewOfEveryBlock } from "../testing/sample-asks.ts";


const review = aReviewOfEveryBlock();

const changes = (...comments: ReviewComment[]): Reply => ({ outcome: "changes_requested", comments });
const c = (anchor: Omit<ReviewComment, "body">, body = "Rename it."): ReviewComment => ({ ...anchor, body });

describe("comments on a review", () => {
  test.each<[string, Reply, ProblemCode | null]>([
    ["changes may be requested with comments alone", changes(c({ block: 2, file: "src/a.ts", side: "new", line: 4 })), null],
    ["a removed line is on the old side", changes(c({ block: 2, file: "src/a.ts", side: "old", line: 2 })), null],
    ["an unchanged line is on both sides", changes(c({ block: 2, file: "src/a.ts", side: "old", line: 3 }), c({ block: 2, file: "src/a.ts", side: "new", line: 1 })), null],
    ["a deleted file is named by its old path", changes(c({ block: 2, file: "old.txt", side: "old", line: 2 })), null],
    ["a diff of hunks only is named by the block's filename", changes(c({ block: 3, file: "bare.txt", side: "new", line: 1 })), null],
    ["a code line", changes(c({ block: 1, line: 3 })), null],
    ["a markdown block as a whole", changes(c({ block: 0 })), null],
    ["an image as a whole", changes(c({ block: 4 })), null],
    ["an approval may carry comments", { outcome: "approved", comments: [c({ block: 1, line: 1 }, "Nice.")] }, null],
    ["a block the review does not have", changes(c({ block: 5 })), "comment.unknown_block"],
    ["a diff line past the hunk", changes(c({ block: 2, file: "src/a.ts", side: "new", line: 5 })), "comment.unknown_line"],
    ["an added line named on the old side", changes(c({ block: 2, file: "src/a.ts", side: "old", line: 4 })), "comment.unknown_line"],
    ["a deleted file has no new side", changes(c({ block: 2, file: "old.txt", side: "new", line: 1 })), "comment.unknown_line"],
    ["a file the diff does not have", changes(c({ block: 2, file: "src/b.ts", side: "new", line: 1 })), "comment.unknown_file"],
    ["a diff comment without its side", changes(c({ block: 2, file: "src/a.ts", line: 1 })), "comment.misplaced"],
    ["a code line past the end", changes(c({ block: 1, line: 4 })), "comment.unknown_line"],
    ["a code comment naming a file", changes(c({ block: 1, file: "q.sql", line: 1 })), "comment.misplaced"],
    ["a code comment without a line", changes(c({ block: 1 })), "comment.misplaced"],
    ["a line on a markdown block", changes(c({ block: 0, line: 1 })), "comment.misplaced"],
    ["a comment of whitespace", changes(c({ block: 0 }, "  \n ")), "reply.empty"],
    ["changes requested with neither feedback nor comments", { outcome: "changes_requested" }, "reply.empty"],
    ["changes requested with an empty list of comments", changes(), "reply.empty"],
  ])("%s", (_behaviour, reply, refusal) => {
    expect(codeOf(checkReply(review, reply))).toBe(refusal);
  });

  test("the refusal says which comment and which line", () => {
    const refusal = checkReply(review, changes(c({ block: 0 }), c({ block: 2, file: "src/a.ts", side: "new", line: 9 })));
    expect(refusal?.message).toContain("Comment 2: src/a.ts shows no new line 9.");
  });

});

