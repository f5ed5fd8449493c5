// Slows down guessing without locking anyone out. A token is checked first, and a valid one is always
// let in: a token that works is not a guess. Refused tokens are counted per client address, and once
// an address has had too many refused within the window, its further refused tokens are answered
// 429 instead of 401, so a client that keeps retrying a dead token is told to back off.
export const FAILURE_WINDOW_MS = 60_000;
export const MAX_FAILURES_PER_WINDOW = 20;
/** Counts kept at once; under a spray from many addresses the oldest are forgotten. */
const MAX_KEYS = 10_000;

/** Where the counts live: this process's memory now; a store shared by replicas would implement the same two calls. */
export interface FailureCounts {
  /** Failures of `key` within the window that ends at `now`. */
  count(key: string, now: number): number;
  add(key: string, now: number): void;
}

export class MemoryFailureCounts implements FailureCounts {
  #failures = new Map<string, { count: number; since: number }>();

  constructor(private windowMs = FAILURE_WINDOW_MS) {}

  count(key: string, now: number): number {
    const f = this.#failures.get(key);
    if (!f) return 0;
    if (now - f.since > this.windowMs) {
      this.#failures.delete(key);
      return 0;
    }
    return f.count;
  }

  add(key: string, now: number): void {
    const f = this.#failures.get(key);
    if (!f || now - f.since > this.windowMs) this.#failures.set(key, { count: 1, since: now });
    else f.count++;
    if (this.#failures.size > MAX_KEYS) this.#failures.delete(this.#failures.keys().next().value!);
  }
}

export class FailureLimiter {
  constructor(
    private counts: FailureCounts = new MemoryFailureCounts(),
    private max = MAX_FAILURES_PER_WINDOW,
  ) {}

  /** Records a refused token from `address`; says whether the address is past its allowance. */
  refused(address: string, now = Date.now()): "counted" | "limited" {
    if (this.counts.count(address, now) >= this.max) return "limited";
    this.counts.add(address, now);
    return "counted";
  }
}
