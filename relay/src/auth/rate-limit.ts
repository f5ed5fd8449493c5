// Slows down guessing: an address that presents too many refused tokens within a window is refused
// outright until the window passes. Counts only failures, so a working client is never limited.
export const FAILURE_WINDOW_MS = 60_000;
export const MAX_FAILURES_PER_WINDOW = 20;

export class FailureLimiter {
  #failures = new Map<string, { count: number; since: number }>();

  constructor(
    private max = MAX_FAILURES_PER_WINDOW,
    private windowMs = FAILURE_WINDOW_MS,
  ) {}

  blocked(address: string, now = Date.now()): boolean {
    const f = this.#failures.get(address);
    if (!f) return false;
    if (now - f.since > this.windowMs) {
      this.#failures.delete(address);
      return false;
    }
    return f.count >= this.max;
  }

  fail(address: string, now = Date.now()): void {
    const f = this.#failures.get(address);
    if (!f || now - f.since > this.windowMs) this.#failures.set(address, { count: 1, since: now });
    else f.count++;
    // Bounded memory under a spray from many addresses: forget the oldest.
    if (this.#failures.size > 10_000) this.#failures.delete(this.#failures.keys().next().value!);
  }
}
