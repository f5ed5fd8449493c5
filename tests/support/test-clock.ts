// A clock the test moves: the relay's `Clock` whose time stands still until `advance` moves it, and
// whose timers fire only then, in the order they fall due. Wall and monotonic time move together.
import { Clock, type Timer } from "../../relay/src/clock.ts";

interface Pending {
  due: number;
  /** Set for `every`: how far apart it fires. */
  period?: number;
  fn: () => unknown;
  seq: number;
}

export class TestClock extends Clock {
  #mono = 1_000_000;
  #wall = Date.now();
  readonly #startWall = this.#wall;
  readonly #startMono = this.#mono;
  #timers = new Set<Pending>();
  #seq = 0;

  override wallMs(): number {
    return this.#wall;
  }
  override monoMs(): number {
    return this.#mono;
  }
  override steadyWallMs(): number {
    return Math.min(this.#wall, this.#startWall + (this.#mono - this.#startMono));
  }
  override after(ms: number, fn: () => unknown): Timer {
    return this.#add({ due: this.#mono + ms, fn, seq: 0 });
  }
  override every(ms: number, fn: () => unknown): Timer {
    return this.#add({ due: this.#mono + ms, period: Math.max(ms, 1), fn, seq: 0 });
  }

  #add(timer: Pending): Timer {
    timer.seq = ++this.#seq;
    this.#timers.add(timer);
    return {
      cancel: () => void this.#timers.delete(timer),
      refresh: () => {
        timer.due = this.#mono + (timer.period ?? timer.due - this.#mono);
      },
    };
  }

  /** Timers set and not yet fired or cancelled (`every` ones included). */
  get timers(): number {
    return this.#timers.size;
  }

  /** The one-off timers due within `ms` from now: what a wait the test expects has set. */
  dueWithin(ms: number): number {
    return [...this.#timers].filter((t) => t.period === undefined && t.due <= this.#mono + ms).length;
  }

  /**
   * Moves time `ms` forward, firing each timer that falls due on the way at its own moment, and lets
   * what each one set going run (the promise it returns, and a few turns of the event loop) before the next.
   */
  async advance(ms: number): Promise<void> {
    const until = this.#mono + ms;
    for (;;) {
      const next = [...this.#timers].filter((t) => t.due <= until).sort((a, b) => a.due - b.due || a.seq - b.seq)[0];
      if (!next) break;
      this.#move(next.due);
      if (next.period === undefined) this.#timers.delete(next);
      else next.due += next.period;
      // The work a timer starts (a sweep reading the store) ends before the next one fires.
      await Promise.resolve(next.fn()).catch(() => {});
      await settle();
    }
    this.#move(until);
    await settle();
  }

  #move(mono: number): void {
    if (mono <= this.#mono) return;
    this.#wall += mono - this.#mono;
    this.#mono = mono;
  }
}

/** A few turns of the event loop: what a fired timer started gets to run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}
