import type { Snippet } from "svelte";

/**
 * What a layer over a renderer can hang on the lines it draws (the review's comments are one such
 * layer): something beneath chosen lines, one line marked, and word of a line picked or a key pressed
 * while the listing has the focus. A renderer given none of these only shows its content. `L` is how
 * the renderer names a line: a number in code, a file's side and line in a diff.
 */
export interface LineHooks<L> {
  /** The lines with something beneath them. */
  belowLines?: readonly L[];
  /** What goes beneath one of `belowLines`. */
  below?: Snippet<[L]>;
  /** The line drawn as the one picked, kept in view. */
  marked?: L | null;
  /** The person clicked or tapped a line: not what is beneath one, nor the end of selecting text. */
  onpick?: (line: L) => void;
  /** Makes the listing one focusable group, named by `label` from the listing's name, and hands it the keys pressed there with its lines in order. */
  keys?: ListingKeys<L>;
}

export interface ListingKeys<L> {
  label: (name: string) => string;
  onkeydown: (event: KeyboardEvent, lines: L[]) => void;
}

/** Whether a click was the end of selecting text (to copy it) rather than a pick. */
export const selectingText = () => String(getSelection() ?? "") !== "";
