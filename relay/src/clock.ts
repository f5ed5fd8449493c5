// Time as the relay records it. Strictly increasing, so that no two asks close at the same
// millisecond and paging by `before` never skips one that shares a page boundary's timestamp.
export class Clock {
  #last = 0;
  now(): string {
    const t = Math.max(Date.now(), this.#last + 1);
    this.#last = t;
    return new Date(t).toISOString();
  }
  nowMs(): number {
    return Date.parse(this.now());
  }
}
