import type { DiffFile } from "diff2html/lib/types";
import type { DiffSide } from "@loopback/shared/generated/types";
import { commentPath } from "@loopback/shared/ask-rules/diff-lines";

export type DiffLayout = "line-by-line" | "side-by-side";

/** A file with more changed lines than this starts folded, so a 256 KiB diff opens at once. */
export const FILE_LINES_OPEN = 400;
/** Files past this many changed lines, counted from the top, start folded too. */
export const TOTAL_LINES_OPEN = 1_200;

export interface DiffFileView {
  file: DiffFile;
  name: string;
  /** The path its lines are named by, as the relay checks them: its new path, or its old one when deleted. */
  path: string;
  changed: number;
  /** Whether it starts unfolded. */
  open: boolean;
}

/** A line of a diff as its renderer names it: the file (as comments name it), the side and the line there. */
export interface DiffLine {
  file: string;
  side: DiffSide;
  line: number;
}

export const sameDiffLine = (a: DiffLine, b: DiffLine) => a.file === b.file && a.side === b.side && a.line === b.line;

/** How a line of a diff reads: "New line 12", "Old line 3". */
export const diffLineLabel = ({ side, line }: Pick<DiffLine, "side" | "line">) => `${side === "old" ? "Old" : "New"} line ${line}`;

type Diff2Html = typeof import("diff2html");
let module: Promise<Diff2Html> | null = null;
export const loadDiff2Html = () => (module ??= import("diff2html"));

export function fileName(file: DiffFile, fallback?: string): string {
  const clean = (name: string | undefined) => (name && name !== "/dev/null" ? name : undefined);
  const oldName = clean(file.oldName);
  const newName = clean(file.newName);
  if (oldName && newName && oldName !== newName) return `${oldName} → ${newName}`;
  return newName ?? oldName ?? fallback ?? "diff";
}

/** The files of a diff, with which ones open at first. */
export function planFiles(files: DiffFile[], fallbackName?: string): DiffFileView[] {
  let budget = TOTAL_LINES_OPEN;
  return files.map((file) => {
    const changed = file.addedLines + file.deletedLines;
    const open = changed <= FILE_LINES_OPEN && changed <= budget;
    if (open) budget -= changed;
    return { file, name: fileName(file, files.length === 1 ? fallbackName : undefined), path: commentPath(file), changed, open };
  });
}

// One reading of a diff's headers for the inbox and the relay, which checks comments against it.
export { withHeaders } from "@loopback/shared/ask-rules/diff-lines";
