import { describe, expect, it } from "vitest";
import { diffLines, withHeaders } from "@loopback/shared/ask-rules/index";
import { DIFF_OF_TWO_FILES, aReview, personReplies } from "../testing/asks";
import { diffTextLine, roundChanges } from "./round-changes";

const code = (text: string) => ({ type: "code" as const, code: text, filename: "q.sql" });

describe("the changes between two rounds", () => {
  const first = aReview({ content: [{ type: "markdown", text: "Plan." }, code("select 1;\nselect 2;\nselect 3;"), { type: "diff", diff: DIFF_OF_TWO_FILES }] });
  const answered = personReplies(first, {
    outcome: "changes_requested",
    comments: [
      { block: 1, line: 2, body: "Not 2." },
      { block: 2, file: "src/a.ts", side: "new", line: 3, body: "Drop c." },
      { block: 0, body: "Say why." },
      { block: 1, line: 3, body: "Far away." },
    ],
  });
  const second = aReview({ revises: first.id, content: [code("select 1;\nselect 22;\nselect 3;"), { type: "diff", diff: DIFF_OF_TWO_FILES.replace("+const c = 4;\n", "") }] });

  it("pairs blocks by file, diffs each one's text, and places each earlier comment on the line it was on", () => {
    const { blocks, elsewhere } = roundChanges(answered, second, 1);
    expect(blocks.map((b) => [b.name, b.state])).toEqual([["q.sql", "changed"], ["src/a.ts, old.txt", "changed"]]);
    expect(blocks[0]!.patch).toContain("-select 2;\n+select 22;");
    expect(blocks[0]!.placed.map((c) => [c.anchor.side, c.anchor.line, c.kind === "earlier" && c.body])).toEqual([["old", 2], ["old", 3]].map(([s, l]) => [s, l, l === 2 ? "Not 2." : "Far away."]));
    // The diff's comment sits on the line of the earlier diff's text that showed new line 4.
    const at = diffTextLine(DIFF_OF_TWO_FILES, "src/a.ts", "new", 3)!;
    expect(DIFF_OF_TWO_FILES.split("\n")[at - 1]).toBe("+const c = 4;");
    expect(blocks[1]!.placed.map((c) => c.anchor.line)).toEqual([at]);
    expect(elsewhere).toEqual([{ label: "block 1 (markdown)", body: "Say why." }]);
  });

  it("keeps a comment whose line the changes do not show beside its block", () => {
    const long = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    const before = personReplies(aReview({ content: [code(long.join("\n"))] }), { outcome: "changes_requested", comments: [{ block: 0, line: 1, body: "Top." }] });
    const after = aReview({ content: [code([...long.slice(0, 29), "changed"].join("\n"))] });
    const [block] = roundChanges(before, after, 1).blocks;
    expect([block!.placed, block!.aside]).toEqual([[], [{ label: "q.sql, line 1 (block 1)", body: "Top." }]]);
  });

  it("says which blocks are new, gone or unchanged", () => {
    const before = aReview({ content: [code("a"), { type: "diff", diff: "@@ -1 +1 @@\n-x\n+y\n", filename: "x" }] });
    const after = aReview({ content: [code("a"), { type: "code", code: "b", filename: "new.ts" }] });
    expect(roundChanges(before, after, 1).blocks.map((b) => [b.name, b.state, b.patch === ""])).toEqual([
      ["q.sql", "unchanged", true],
      ["new.ts", "new", false],
      ["x", "gone", false],
    ]);
  });

  it("finds a diff's lines where the shared rules find them", () => {
    const text = withHeaders(DIFF_OF_TWO_FILES);
    for (const file of diffLines(DIFF_OF_TWO_FILES)) {
      for (const side of ["old", "new"] as const) for (const line of file[side]) expect(diffTextLine(text, file.path, side, line)).not.toBeNull();
    }
    expect(diffTextLine(text, "src/a.ts", "old", 4)).toBeNull();
    expect(diffTextLine(text, "old.txt", "old", 2)).toBe(16);
  });
});
