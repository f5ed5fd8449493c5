/** A code block longer than this shows its first FOLDED_LINES and a control for the rest. */
export const FOLD_OVER_LINES = 120;
/** How many lines a folded block shows. */
export const FOLDED_LINES = 80;
