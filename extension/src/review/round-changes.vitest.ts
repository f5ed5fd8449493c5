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

  it("pairs blocks by file, compares each one's code, and places each earlier comment on the line it was on", () => {
    const { blocks, unchanged, elsewhere } = roundChanges(answered, second, 1);
    expect(blocks.map((b) => [b.name, b.state])).toEqual([["q.sql", "changed"], ["src/a.ts", "changed"]]);
    expect(unchanged).toEqual(["old.txt"]);
    expect(blocks[0]!.patch).toContain("-select 2;\n+select 22;");
    expect(blocks[0]!.placed.map((c) => [c.anchor.side, c.anchor.line, c.kind === "earlier" && c.body])).toEqual([["old", 2], ["old", 3]].map(([s, l]) => [s, l, l === 2 ? "Not 2." : "Far away."]));
    // The file's code then and now: the line that went, numbered as in the file, and the comment
    // made on it (new line 3 of the earlier round) beside it.
    expect(blocks[1]!.patch).toBe("--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,4 +1,3 @@\n const a = 1;\n const b = 3;\n-const c = 4;\n export { a };\n");
    expect(blocks[1]!.placed.map((c) => [c.anchor.side, c.anchor.line])).toEqual([["old", 3]]);
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
    const changes = roundChanges(before, after, 1);
    expect(changes.blocks.map((b) => [b.name, b.state, b.patch === ""])).toEqual([
      ["new.ts", "new", false],
      ["x", "gone", false],
    ]);
    expect(changes.unchanged).toEqual(["q.sql"]);
  });

  it("compares the code each round's diff shows, not the patch text: only the file whose code changed, only its changed lines", () => {
    const hunk = (file: string, lines: string[], header = "@@ -10,3 +10,3 @@") => [`diff --git a/${file} b/${file}`, `--- a/${file}`, `+++ b/${file}`, header, ...lines];
    const one = [
      ...hunk("src/same.ts", ["   keep();", "-  old();", "+  changed();", "   done();"]),
      ...hunk("src/moved.ts", ["   start();", "-  retry(1);", "+  retry(3);", "   end();"]),
    ].join("\n");
    // The same code of src/same.ts with an index line and a header of another form; src/moved.ts changed on one line.
    const two = [
      ...hunk("src/same.ts", ["   keep();", "-  old();", "+  changed();", "   done();"], "@@ -10,3 +10,3 @@ function f() {").toSpliced(1, 0, "index 1a2b3c..4d5e6f 100644"),
      ...hunk("src/moved.ts", ["   start();", "-  retry(1);", "+  retry(5);", "   end();"]),
    ].join("\n");
    const before = personReplies(aReview({ content: [{ type: "diff", diff: one }] }), {
      outcome: "changes_requested",
      comments: [{ block: 0, file: "src/moved.ts", side: "new", line: 11, body: "Why three?" }],
    });
    const after = aReview({ revises: before.id, content: [{ type: "diff", diff: two }] });
    const { blocks, unchanged } = roundChanges(before, after, 1);
    expect(blocks.map((b) => b.name)).toEqual(["src/moved.ts"]);
    expect(unchanged).toEqual(["src/same.ts"]);
    const changed = blocks[0]!.patch.split("\n").filter((l) => /^[+-](?![+-]{2} )/.test(l));
    expect(changed).toEqual(["-  retry(3);", "+  retry(5);"]);
    expect(blocks[0]!.patch).toContain("@@ -10,3 +10,3 @@");
    expect(blocks[0]!.placed.map((c) => [c.anchor.line, c.kind === "earlier" && c.body])).toEqual([[11, "Why three?"]]);
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
