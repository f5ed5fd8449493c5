// A unified diff between what two rounds of a review show of one file's side: each line keeps
// its number in the file, and a hunk ends where the shown lines skip ahead (the rounds' diffs
// showed no code between), so every number the person reads is the file's own.
import { diffArrays } from "diff";
import type { ShownLine } from "./diff-sides";

type Op = { mark: " " | "-" | "+"; before?: ShownLine; after?: ShownLine };

/** The ops turning `before` into `after`, line by line. */
function ops(before: ShownLine[], after: ShownLine[]): Op[] {
  const out: Op[] = [];
  let i = 0;
  let j = 0;
  for (const part of diffArrays(before.map((l) => l.text), after.map((l) => l.text))) {
    for (let k = 0; k < part.count!; k++) {
      if (part.added) out.push({ mark: "+", after: after[j++] });
      else if (part.removed) out.push({ mark: "-", before: before[i++] });
      else out.push({ mark: " ", before: before[i++], after: after[j++] });
    }
  }
  return out;
}

/** The patch from `before` to `after` of file `path`, with `context` lines around each change; "" when they are the same. */
export function sidesPatch(path: string, before: ShownLine[], after: ShownLine[], context = 3): string {
  const all = ops(before, after);
  const keep = all.map(() => false);
  all.forEach((op, at) => {
    if (op.mark === " ") return;
    for (let k = Math.max(0, at - context); k <= Math.min(all.length - 1, at + context); k++) keep[k] = true;
  });
  if (!keep.includes(true)) return "";

  const hunks: Op[][] = [];
  let hunk: Op[] | null = null;
  let lastOld: number | undefined;
  let lastNew: number | undefined;
  all.forEach((op, at) => {
    if (!keep[at]) return void (hunk = null);
    const jumps = (op.before && lastOld !== undefined && op.before.n !== lastOld + 1) || (op.after && lastNew !== undefined && op.after.n !== lastNew + 1);
    if (!hunk || jumps) hunks.push((hunk = []));
    hunk.push(op);
    if (op.before) lastOld = op.before.n;
    if (op.after) lastNew = op.after.n;
  });

  const out = [`--- a/${path}`, `+++ b/${path}`];
  for (const h of hunks) {
    const olds = h.filter((op) => op.before);
    const news = h.filter((op) => op.after);
    // A side with no lines in the hunk starts after the line before it (0: the file's top).
    const oldStart = olds[0]?.before!.n ?? 0;
    const newStart = news[0]?.after!.n ?? 0;
    out.push(`@@ -${oldStart},${olds.length} +${newStart},${news.length} @@`);
    for (const op of h) out.push(`${op.mark}${(op.before ?? op.after)!.text}`);
  }
  return out.join("\n") + "\n";
}
