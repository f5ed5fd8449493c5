import { describe, expect, it } from "vitest";
import { codeRuns, linesOf } from "./code-lines";

const lines = ["a", "b <c>", "d", "e"];

describe("a code block cut into runs around the lines with something beneath them", () => {
  it("ends a run at each such line, naming it once, and draws the rest after", () => {
    const runs = codeRuns(lines, null, [2, 2, 3]);
    expect(runs.map((r) => [r.from, r.to, r.below])).toEqual([[1, 2, [2]], [3, 3, [3]], [4, 4, []]]);
    // Plain lines are escaped text.
    expect(runs[0]!.html).toBe("a\nb &lt;c&gt;");
  });

  it("puts what is beneath a line past the end beneath the last line, never losing it", () => {
    expect(codeRuns(lines, null, [9, 4]).map((r) => [r.from, r.to, r.below])).toEqual([[1, 4, [4, 9]]]);
    expect(codeRuns(lines, null, [0]).map((r) => [r.from, r.to, r.below])).toEqual([[1, 1, [0]], [2, 4, []]]);
  });

  it("uses shiki's lines where it got to, and plain lines past them", () => {
    const highlighted = { style: "", steps: ['<span class="line"><i>a</i></span>\n<span class="line"><i>b</i></span>'], lines: 2, done: false };
    const [run] = codeRuns(lines, highlighted, [4]);
    expect(run!.html).toBe('<span class="line"><i>a</i></span>\n<span class="line"><i>b</i></span>\nd\ne');
  });

  it("counts a file's lines without the newline that ends it", () => {
    expect(linesOf("a\nb\n")).toEqual(["a", "b"]);
  });
});
