// Two rounds of a review whose diffs change two files, then revise one: the second round's diff of
// src/same.ts has the same code under a patch text that differs (an `index` line, a hunk header
// naming its function), and src/retry.ts changes one line. Only that line is a change.

const hunk = (file: string, lines: string[], header = "@@ -10,4 +10,4 @@") => [`diff --git a/${file} b/${file}`, `--- a/${file}`, `+++ b/${file}`, header, ...lines];

const SAME = ["   keep();", "-  old();", "+  changed();", "   done();", "   return;"];

export const ROUND_1 = [...hunk("src/same.ts", SAME), ...hunk("src/retry.ts", ["   start();", "-  retry(1);", "+  retry(3);", "   end();", "   return;"])].join("\n") + "\n";

export const ROUND_2 =
  [
    ...hunk("src/same.ts", SAME, "@@ -10,4 +10,4 @@ function run() {").toSpliced(1, 0, "index 1a2b3c4..4d5e6f7 100644"),
    ...hunk("src/retry.ts", ["   start();", "-  retry(1);", "+  retry(5);", "   end();", "   return;"]),
  ].join("\n") + "\n";

/** The line of src/retry.ts the person comments on in round 1: `retry(3)`, new line 11. */
export const COMMENTED = { file: "src/retry.ts", side: "new" as const, line: 11 };

export const round = (project: string, diff: string, revises?: string) => ({
  title: `Retry the import (${project})`,
  project,
  content: [{ type: "diff", diff }],
  ...(revises ? { revises } : {}),
});
