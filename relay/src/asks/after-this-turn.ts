// Resolves once the promise jobs queued in this turn of the event loop have run, and whatever they
// queued in turn: what is put after it goes out behind work already under way (a woken call writing
// its result) instead of before it.
export const afterThisTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
