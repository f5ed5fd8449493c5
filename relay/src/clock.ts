// Time as the relay reads it. Wall time (`now`) only stamps records; every duration (a wait's budget,
// a progress beat, how long a session has been idle, a task's time to live) is measured on the
// monotonic clock (`monoMs`), which a wall clock set forward or back (NTP, a VM resumed, an operator)
// does not move, and is waited for with `after` and `every`, so that whoever holds the clock (a test
// advancing its own) decides when those durations have passed.
export class Clock {
  #last = 0;
  readonly #startWall = Date.now();
  readonly #startMono = performance.now();

  /**
   * Strictly increasing, so that no two asks close at the same millisecond and paging by `before`
   * never skips one that shares a page boundary's timestamp.
   */
  now(): string {
    const t = Math.max(this.wallMs(), this.#last + 1);
    this.#last = t;
    return new Date(t).toISOString();
  }
  nowMs(): number {
    return Date.parse(this.now());
  }
  /** The wall clock as it reads, for stamping and for deadlines stored as wall time. */
  wallMs(): number {
    return Date.now();
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
    return Math.min(this.wallMs(), this.#startWall + (this.monoMs() - this.#startMono));
  }
  /**
   * Calls `fn` once, `ms` from now. The timer never keeps the process alive by itself. What `fn`
   * returns (the promise of its work) is for a test's clock to wait on.
   */
  after(ms: number, fn: () => unknown): Timer {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return { cancel: () => clearTimeout(t), refresh: () => void t.refresh() };
  }
  /** Calls `fn` every `ms` until cancelled, as `after` does once. */
  every(ms: number, fn: () => unknown): Timer {
    const t = setInterval(fn, ms);
    t.unref?.();
    return { cancel: () => clearInterval(t), refresh: () => void t.refresh() };
  }
}

/** A wait started with `Clock.after` or `Clock.every`. */
export interface Timer {
  cancel(): void;
  /** Starts the wait over from now. */
  refresh(): void;
}
