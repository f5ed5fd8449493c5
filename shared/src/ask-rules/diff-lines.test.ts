import { expect, test } from "bun:test";
import { diffLines, withHeaders } from "./diff-lines.ts";
import { DIFF_OF_TWO_FILES as DIFF } from "../testing/sample-asks.ts";

test("the lines of a diff are read per file and side", () => {
  const [a, old] = diffLines(DIFF);
  expect([a.path, [...a.old], [...a.new]]).toEqual(["src/a.ts", [1, 2, 3], [1, 2, 3, 4]]);
  expect([old.path, [...old.old], [...old.new]]).toEqual(["old.txt", [1, 2], []]);
});

test("a diff of hunks only is read as one file named by the block's filename", () => {
  expect(diffLines("@@ -1 +1 @@\n-x\n+y\n", "bare.txt").map((f) => [f.path, [...f.old], [...f.new]])).toEqual([["bare.txt", [1], [1]]]);
  expect(withHeaders(DIFF)).toBe(DIFF);
});

test("reading the same diff again gives the same reading, parsed once", () => {
  expect(diffLines(DIFF)).toBe(diffLines(DIFF));
  expect(diffLines("@@ -1 +1 @@\n-x\n+y\n", "one.txt")).not.toBe(diffLines("@@ -1 +1 @@\n-x\n+y\n", "two.txt"));
});
