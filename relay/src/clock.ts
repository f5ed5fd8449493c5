// Time as the relay reads it. Wall time (`now`) only stamps records; every duration (a wait's budget,
// a progress beat, how long a session has been idle, a task's time to live) is measured on the
// monotonic clock (`monoMs`), which a wall clock set forward or back (NTP, a VM resumed, an operator)
// does not move.
export class Clock {
  #last = 0;
  readonly #startWall = Date.now();
  readonly #startMono = performance.now();

  /**
   * Strictly increasing, so that no two asks close at the same millisecond and paging by `before`
   * never skips one that shares a page boundary's timestamp.
   */
  now(): string {
    const t = Math.max(Date.now(), this.#last + 1);
    this.#last = t;
    return new Date(t).toISOString();
  }
  nowMs(): number {
    return Date.parse(this.now());
  }
  /** Milliseconds on the monotonic clock, from an arbitrary origin: for durations only. */
  monoMs(): number {
    return performance.now();
  }
  /**
   * Wall time as far as the monotonic clock has moved it since the relay started, unless the wall
   * clock is behind that: the "now" to hold a stored wall-time deadline against, so that a wall clock
   * set forward does not expire at once what the relay keeps, and one set back keeps nothing longer
   * than this relay has run.
   */
  steadyWallMs(): number {
    return Math.min(Date.now(), this.#startWall + (performance.now() - this.#startMono));
  }
}
