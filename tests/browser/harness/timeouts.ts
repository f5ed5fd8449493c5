/** How long one step a person takes may last before a browser test calls it stuck. */
export const STEP_MS = 15_000;
/** The undo window the inbox holds a verdict or a dismissal for (extension/src/reply/draft.svelte.ts). */
export const UNDO_MS = 5_000;
