// Which lines a diff block shows, per file and side, read by the same parser the inbox draws diffs
// with, so a line the person can click is exactly a line the relay accepts a comment on.
import { parse } from "diff2html/lib-esm/diff-parser.js";
import type { DiffFile } from "diff2html/lib-esm/types.js";

/** A diff that is only hunks, with no file headers, gets them so the parser sees a file. */
export function withHeaders(diff: string, filename = "file"): string {
  if (/^(diff --git |--- )/m.test(diff)) return diff;
  return `--- a/${filename}\n+++ b/${filename}\n${diff}`;
}

/** The path a comment names a file of a diff by: its new path, or its old one when it was deleted. */
export function commentPath(file: Pick<DiffFile, "oldName" | "newName">): string {
  const clean = (name: string | undefined) => (name && name !== "/dev/null" ? name : undefined);
  return clean(file.newName) ?? clean(file.oldName) ?? "file";
}

export interface DiffFileLines {
  path: string;
  old: Set<number>;
  new: Set<number>;
}

// The inbox checks a reply's comments on every keystroke: a large diff is parsed once, not each time.
const recent = new Map<string, DiffFileLines[]>();
const RECENT_DIFFS = 8;

/** Every file of a diff block with the line numbers each side shows. */
export function diffLines(diff: string, filename?: string): DiffFileLines[] {
  const source = withHeaders(diff, filename);
  const known = recent.get(source);
  if (known) return known;
  const files = read(source);
  recent.set(source, files);
  if (recent.size > RECENT_DIFFS) recent.delete(recent.keys().next().value!);
  return files;
}

function read(source: string): DiffFileLines[] {
  return parse(source).map((file) => {
    const lines: DiffFileLines = { path: commentPath(file), old: new Set(), new: new Set() };
    for (const block of file.blocks) {
      for (const line of block.lines) {
        if (line.oldNumber !== undefined) lines.old.add(line.oldNumber);
        if (line.newNumber !== undefined) lines.new.add(line.newNumber);
      }
    }
    return lines;
  });
}
