import { describe, expect, it } from "vitest";
import { codeLines } from "./code-lines";
import { DraftComment, type ShownComment } from "./line-comments.svelte";

const on = (line: number): ShownComment => ({ kind: "draft", anchor: { block: 0, line }, draft: new DraftComment({ block: 0, line }) });
const lines = ["a", "b <c>", "d", "e"];

describe("a code block cut into runs around its comments", () => {
  it("ends a run at each commented line, with its comments, and draws the rest after", () => {
    const runs = codeLines(lines, null, [on(2), on(2), on(3)]);
    expect(runs.map((r) => [r.from, r.to, r.comments.length])).toEqual([[1, 2, 2], [3, 3, 1], [4, 4, 0]]);
    // Plain lines are escaped text.
    expect(runs[0]!.html).toBe("a\nb &lt;c&gt;");
  });

  it("uses shiki's lines where it got to, and plain lines past them", () => {
    const highlighted = { style: "", steps: ['<span class="line"><i>a</i></span>\n<span class="line"><i>b</i></span>'], lines: 2, done: false };
    const [run] = codeLines(lines, highlighted, [on(4)]);
    expect(run!.html).toBe('<span class="line"><i>a</i></span>\n<span class="line"><i>b</i></span>\nd\ne');
  });
});
