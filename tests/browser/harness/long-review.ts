// A review as long as real ones get: a summary, a 150-line diff over three files. Its verdict
// buttons sit many screens below its top unless they stay docked on screen.

/** One file's hunk of `lines` changed lines, every other one replaced. */
function fileDiff(name: string, lines: number): string {
  const body: string[] = [];
  for (let i = 1; i <= lines; i++) body.push(i % 2 ? `-  const step${i} = compute(${i}, "old");` : `+  const step${i} = compute(${i}, "new", { retries: 3 });`);
  return [`diff --git a/${name} b/${name}`, `--- a/${name}`, `+++ b/${name}`, `@@ -1,${lines / 2} +1,${lines / 2} @@`, ...body].join("\n");
}

export const LONG_DIFF = [fileDiff("src/import/rows.ts", 50), fileDiff("src/import/batch.ts", 50), fileDiff("src/import/index.ts", 50)].join("\n");

/** The `request_review` arguments of a long review titled `title` in `project`. */
export const longReview = (title: string, project: string) => ({
  title,
  summary: "Every step of the import now retries three times before giving up.",
  project,
  content: [
    { type: "markdown", text: "The import retries each step, so one flaky read no longer fails the night." },
    { type: "diff", diff: LONG_DIFF },
  ],
});
