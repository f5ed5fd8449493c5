// Asks this relay opened or changed lately, on PostgreSQL, where other replicas write too: a person's
// reply is decided on the copy held here instead of a read (a round trip to the database, about a
// millisecond after a pause, on the path an agent waits on). A copy may be behind when another
// replica moved the ask and its notice has not come yet; the reply's commit then finds the version
// moved (its compare-and-set) and the service decides the reply again on the ask as the store holds
// it, so a copy held here can delay a reply by a read, never change what is stored. Nothing else
// reads these copies: a wait reads the store (asks/waiting.ts). On SQLite every read is from memory
// already (asks/cached-asks.ts).
import { LRUCache } from "lru-cache";
import type { VersionedAsk } from "../storage/store.ts";

/** Asks held: the most recently kept; an ask not touched for that long is read as before. */
const HELD = 10_000;

export class RecentAsks {
  #held = new LRUCache<string, VersionedAsk>({ max: HELD });

  /** The copy held of an ask, if any: it may be behind the store. */
  peek(askId: string): VersionedAsk | undefined {
    return this.#held.get(askId);
  }

  /** Whether `stored` is the copy held here (not one read from the store). */
  holds(stored: VersionedAsk): boolean {
    return this.#held.peek(stored.ask.id) === stored;
  }

  /** The ask as this relay stored it; an older version than the one held is not kept. */
  keep(stored: VersionedAsk): void {
    const held = this.#held.peek(stored.ask.id);
    if (held && held.version > stored.version) return;
    this.#held.set(stored.ask.id, stored);
  }

  /** Another replica changed the ask to `version`: a copy older than that is let go. */
  heard(askId: string, version: number): void {
    const held = this.#held.peek(askId);
    if (held && held.version < version) this.#held.delete(askId);
  }

  forget(askId: string): void {
    this.#held.delete(askId);
  }

  /** Changes may have been missed (the listener or the database was away): nothing held is trusted. */
  clear(): void {
    this.#held.clear();
  }
}
