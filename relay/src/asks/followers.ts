// Which asks an agent is following right now, on this process. Kept in memory only: after a restart
// nobody is waiting until an agent follows again, which is exactly what `waiting` must say. Other
// replicas hear of every flip (asks/followers-elsewhere.ts).
import type { VersionedAsk } from "../storage/store.ts";

export interface Follower {
  /** Called when the ask changes (with it as changed here, when it was), so the follower can look for a reply. */
  wake(changed?: VersionedAsk): void;
  /** Whether it takes the person's next reply, once woken: a call that follows, not a hold or a task's lease. */
  takes?(): boolean;
  /** Called when the relay stops: the wait ends now, and the agent comes back for the reply. */
  release(): void;
}

export class Followers {
  #byAsk = new Map<string, Set<Follower>>();

  /** `onFlip` hears every ask this process begins or stops following (the other replicas are told). */
  constructor(private onFlip?: (askId: string, following: boolean) => void) {}

  /** Returns true when the ask was not followed before, so `waiting` flips to true. */
  add(askId: string, follower: Follower): boolean {
    const set = this.#byAsk.get(askId);
    if (set) {
      set.add(follower);
      return false;
    }
    this.#byAsk.set(askId, new Set([follower]));
    this.onFlip?.(askId, true);
    return true;
  }

  /** Returns true when the ask is no longer followed, so `waiting` flips to false. */
  remove(askId: string, follower: Follower): boolean {
    const set = this.#byAsk.get(askId);
    if (!set?.delete(follower)) return false;
    if (set.size > 0) return false;
    this.#byAsk.delete(askId);
    this.onFlip?.(askId, false);
    return true;
  }

  isFollowed(askId: string): boolean {
    return this.#byAsk.has(askId);
  }

  wake(askId: string, changed?: VersionedAsk): void {
    for (const f of this.#byAsk.get(askId) ?? []) f.wake(changed);
  }

  /** Whether a follower here takes the person's next reply to the ask. */
  taken(askId: string): boolean {
    for (const f of this.#byAsk.get(askId) ?? []) if (f.takes?.()) return true;
    return false;
  }

  /** Every follower looks again: changes may have been missed (the store's listener reconnected). */
  wakeAll(): void {
    for (const set of this.#byAsk.values()) for (const f of set) f.wake();
  }

  releaseAll(): void {
    for (const set of this.#byAsk.values()) for (const f of [...set]) f.release();
  }

  /** The asks followed here. */
  askIds(): string[] {
    return [...this.#byAsk.keys()];
  }

  /** How many asks are followed here. */
  get asks(): number {
    return this.#byAsk.size;
  }

  get count(): number {
    let n = 0;
    for (const set of this.#byAsk.values()) n += set.size;
    return n;
  }
}
