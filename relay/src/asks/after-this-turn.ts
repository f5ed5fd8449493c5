// Resolves once the promise jobs queued in this turn of the event loop have run, and whatever they
// queued in turn: what is put after it goes out behind work already under way (a woken call writing
// its result) instead of before it.
export const afterThisTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A call of `work` after this turn, however often it is asked for during it: work gathered in a turn, done off its way. */
export function onceAfterThisTurn(work: () => void): () => void {
  let due = false;
  return () => {
    if (due) return;
    due = true;
    void afterThisTurn().then(() => {
      due = false;
      work();
    });
  };
}
