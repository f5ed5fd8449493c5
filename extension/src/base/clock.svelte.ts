/** A shared "now" that ticks every 30 s, so ages in the list stay true without each row owning a timer. */
class Clock {
  now = $state(Date.now());
  #timer: ReturnType<typeof setInterval> | null = null;
  #users = 0;

  use(): () => void {
    if (this.#users++ === 0) this.#timer = setInterval(() => (this.now = Date.now()), 30_000);
    this.now = Date.now();
    return () => {
      if (--this.#users === 0 && this.#timer) clearInterval(this.#timer);
    };
  }
}

export const clock = new Clock();
