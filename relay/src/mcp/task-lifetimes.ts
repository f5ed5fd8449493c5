// How long this relay has known each task, on the monotonic clock. A task's row says when it was
// created in wall time and how long it lives (`ttlMs`), so any replica, or the relay after a restart,
// can serve it; but held against the wall clock alone, a clock set forward by days would make every
// working task "not found" at once, and one set back would keep them a day too long. So a task's
// time to live is counted from the moment this relay created it (or first saw it) on the monotonic
// clock; before that, against the wall clock as far as the monotonic one has moved it.
import type { Clock } from "../clock.ts";
import { TASK_MAX_TTL_MS } from "./task-ttl.ts";

interface Anchor {
  /** The task's wall time when this relay began counting. */
  wallMs: number;
  monoMs: number;
}

export class TaskLifetimes {
  #anchors = new Map<string, Anchor>();

  constructor(private clock: Clock) {}

  /** A task created here now, stamped `createdAtMs`: its life is counted from this moment. */
  began(taskId: string, createdAtMs: number): void {
    this.#anchors.set(taskId, { wallMs: createdAtMs, monoMs: this.clock.monoMs() });
  }

  /** The wall time to hold the task's stored deadline (`createdAt + ttlMs`) against now. */
  nowFor(taskId: string): number {
    const a = this.#anchors.get(taskId);
    return a ? a.wallMs + (this.clock.monoMs() - a.monoMs) : this.clock.steadyWallMs();
  }

  /** A task found in the store: from now on its life is counted here on the monotonic clock. */
  seen(taskId: string): void {
    if (!this.#anchors.has(taskId)) this.#anchors.set(taskId, { wallMs: this.clock.steadyWallMs(), monoMs: this.clock.monoMs() });
  }

  /** Forgets the tasks no time to live can still keep. */
  sweep(): void {
    const now = this.clock.monoMs();
    for (const [id, a] of this.#anchors) if (now - a.monoMs > TASK_MAX_TTL_MS) this.#anchors.delete(id);
  }
}
