// One file of a diff drawn by diff2html, and its scrolling boxes made reachable by keyboard.
import type { DiffFileView, DiffLayout } from "./diff";
import { loadDiff2Html } from "./diff";

/** Word-level matching is quadratic: a file with more changed lines than this gets line colours only. */
const MATCH_WORDS_UP_TO_LINES = 300;

/** The file's diff as diff2html draws it, in `layout`. */
export async function drawFile(view: DiffFileView, layout: DiffLayout): Promise<string> {
  const { html } = await loadDiff2Html();
  return html([view.file], {
    outputFormat: layout,
    drawFileList: false,
    colorScheme: "auto" as never,
    matching: view.changed > MATCH_WORDS_UP_TO_LINES ? "none" : "lines",
  } as Parameters<typeof html>[1]);
}

/** diff2html's boxes scroll sideways: focusable, so a keyboard can scroll them, and named for it. */
export function nameScrollBoxes(root: HTMLElement, name: string): void {
  const boxes = root.querySelectorAll<HTMLElement>(".d2h-file-diff, .d2h-file-side-diff");
  const sides = boxes.length === 2 ? [", before", ", after"] : [""];
  boxes.forEach((box, i) => {
    box.tabIndex = 0;
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", `Diff of ${name}${sides[i] ?? ""}`);
  });
}
