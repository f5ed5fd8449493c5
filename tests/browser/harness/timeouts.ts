/** How long one step a person takes may last before a browser test calls it stuck. */
export const STEP_MS = 15_000;
