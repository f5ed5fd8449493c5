import type { ShownComment } from "./line-comments.svelte";

/** A block's comments by the line they are on, named by `lineOf`; the lines in the order first commented. */
export function commentsOnLines<L>(comments: ShownComment[], lineOf: (c: ShownComment) => L, keyOf: (line: L) => string | number) {
  const byKey = new Map<string | number, { line: L; comments: ShownComment[] }>();
  for (const comment of comments) {
    const line = lineOf(comment);
    const key = keyOf(line);
    const entry = byKey.get(key);
    if (entry) entry.comments.push(comment);
    else byKey.set(key, { line, comments: [comment] });
  }
  return {
    lines: [...byKey.values()].map((entry) => entry.line),
    on: (line: L) => byKey.get(keyOf(line))?.comments ?? [],
  };
}
