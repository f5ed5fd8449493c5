// Slows down guessing without locking anyone out. A token is checked first, and a valid one is always
// let in: a token that works is not a guess. Refused tokens are counted per client address in the
// store (so every replica sees every replica's count), and once an address has had too many refused
// within the store's window, its further refused tokens are answered 429 instead of 401, so a client that
// keeps retrying a dead token is told to back off.
import type { FailureCountRecords } from "../storage/store.ts";

export const MAX_FAILURES_PER_WINDOW = 20;

export class FailureLimiter {
  constructor(
    private counts: FailureCountRecords,
    private max = MAX_FAILURES_PER_WINDOW,
  ) {}

  /** Records a refused token from `address` at `now` (the relay clock's wall time); says whether the address is past its allowance. */
  async refused(address: string, now: number): Promise<"counted" | "limited"> {
    if ((await this.counts.count(address, now)) >= this.max) return "limited";
    await this.counts.add(address, now);
    return "counted";
  }

  /** Forgets addresses whose window ended. */
  sweep(now: number): Promise<void> {
    return this.counts.sweep(now);
  }
}
