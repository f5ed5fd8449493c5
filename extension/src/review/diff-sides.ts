// The code a diff shows of each file, side by side: the old side's lines (context and removed)
// and the new side's (context and added), each with its line number in the file and without the
// diff's markers. Two rounds of a review are compared by this code, not by their patch text.
import { parse } from "diff2html/lib-esm/diff-parser.js";
import { commentPath, withHeaders } from "@loopback/shared/ask-rules/index";

export interface ShownLine {
  n: number;
  text: string;
}

export interface FileSides {
  path: string;
  old: ShownLine[];
  new: ShownLine[];
}

/** Every file of a diff block with the lines each side shows, in order. */
export function fileSides(diff: string, filename?: string): FileSides[] {
  return parse(withHeaders(diff, filename)).map((file) => {
    const sides: FileSides = { path: commentPath(file), old: [], new: [] };
    for (const block of file.blocks) {
      for (const line of block.lines) {
        // diff2html keeps the marker (" ", "+", "-") as the content's first character.
        const text = line.content.slice(1);
        if (line.oldNumber !== undefined) sides.old.push({ n: line.oldNumber, text });
        if (line.newNumber !== undefined) sides.new.push({ n: line.newNumber, text });
      }
    }
    return sides;
  });
}
