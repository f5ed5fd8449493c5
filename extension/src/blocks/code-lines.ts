// A code block's lines as a layer over them needs them: the runs of lines between those with
// something beneath them, and which line a click or a marked line is. Every drawn run, step or plain
// listing names the line it starts at in `data-from`; highlighted lines are shiki's `.line` elements.
import type { Highlight } from "./highlight";

export interface Run {
  from: number;
  to: number;
  /** The lines as HTML: shiki's `.line` elements where it got to, escaped text after. */
  html: string;
  /** The lines whose extras go beneath the run's last line: that line, or lines past the end. */
  below: number[];
}

/** A block's lines: a file's last newline ends its last line; it does not start another. */
export const linesOf = (code: string) => code.replace(/\r?\n$/, "").split("\n");

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The lines cut into runs that each end at a line with something beneath it. */
export function codeRuns(lines: string[], highlighted: Highlight | null, belowLines: readonly number[]): Run[] {
  // shiki joins a step's lines with "\n" between `.line` elements, and never puts one inside a line.
  const html = highlighted ? highlighted.steps.flatMap((step) => step.split("\n")) : [];
  // Plain lines stay text, as the plain listing is: a click on them is placed by where it fell.
  const lineHtml = (n: number) => html[n - 1] ?? escape(lines[n - 1] ?? "");
  const byLine = new Map<number, number[]>();
  for (const asked of new Set(belowLines)) {
    const line = Math.min(Math.max(asked, 1), lines.length);
    byLine.set(line, [...(byLine.get(line) ?? []), asked]);
  }
  const ends = [...byLine.keys()].sort((a, b) => a - b);
  if (ends.at(-1) !== lines.length) ends.push(lines.length);
  const runs: Run[] = [];
  let from = 1;
  for (const to of ends) {
    const parts: string[] = [];
    for (let n = from; n <= to; n++) parts.push(lineHtml(n));
    runs.push({ from, to, html: parts.join("\n"), below: (byLine.get(to) ?? []).sort((a, b) => a - b) });
    from = to + 1;
  }
  return runs;
}

/** The line a click landed on, or null. */
export function lineAt(event: MouseEvent, root: HTMLElement): number | null {
  const target = event.target as Element;
  const line = target.closest(".line");
  const start = (line ?? target).closest<HTMLElement>("[data-from]");
  if (!start || !root.contains(start)) return null;
  const from = Number(start.dataset.from);
  if (line) return from + [...start.querySelectorAll(":scope > .line")].indexOf(line);
  // Plain text: count the line breaks before where the click fell.
  const doc = document as Document & { caretPositionFromPoint?: (x: number, y: number) => { offsetNode: Node; offset: number } | null };
  const caret = doc.caretPositionFromPoint?.(event.clientX, event.clientY);
  const range = caret ? null : document.caretRangeFromPoint?.(event.clientX, event.clientY);
  const node = caret?.offsetNode ?? range?.startContainer;
  const offset = caret?.offset ?? range?.startOffset ?? 0;
  if (!node || !start.contains(node)) return from;
  const before = document.createRange();
  before.setStart(start, 0);
  before.setEnd(node, offset);
  return from + (before.toString().match(/\n/g)?.length ?? 0);
}

/** The drawn element of line `n`, where lines are elements (highlighted, or cut into runs). */
export function lineElement(root: HTMLElement, n: number): Element | null {
  let start: HTMLElement | null = null;
  for (const el of root.querySelectorAll<HTMLElement>("[data-from]")) {
    if (Number(el.dataset.from) <= n) start = el;
    else break;
  }
  if (!start) return null;
  return start.querySelectorAll(":scope > .line")[n - Number(start.dataset.from)] ?? null;
}
