// Asks this relay opened or changed lately, on PostgreSQL, where other replicas write too: a person's
// reply is decided on the copy held here instead of a read (a round trip to the database, about a
// millisecond after a pause, on the path an agent waits on). A copy may be behind when another
// replica moved the ask and its notice has not come yet; the reply's commit then finds the version
// moved (its compare-and-set) and the service decides the reply again on the ask as the store holds
// it. So a copy that is behind costs the reply at most two reads (a refused commit reads to say why,
// then the new decision reads) where it would have made one, and never changes what is stored.
// Nothing else reads these copies: a wait reads the store (asks/waiting.ts). On SQLite every read is
// from memory already (asks/cached-asks.ts).
import { LRUCache } from "lru-cache";
import { jsonSize } from "./json-size.ts";
import type { VersionedAsk } from "../storage/store.ts";

/**
 * Bytes of asks held (as JSON), the most recently kept last: a review's diff may take megabytes, so
 * the bound is their size, not their count. An ask let go is read as before.
 */
export const RECENT_ASK_BYTES = 16 * 1024 * 1024;

export class RecentAsks {
  #held: LRUCache<string, VersionedAsk>;
  /**
   * Every copy kept here, held or let go since: a reply that began on a copy is still deciding on a
   * copy when a notice lets it go meanwhile (the route reads while the token is checked).
   */
  #copies = new WeakSet<VersionedAsk>();

  constructor(maxBytes = RECENT_ASK_BYTES) {
    // Its size as JSON, counted without writing it out: an ask bigger than the whole bound is not held.
    this.#held = new LRUCache({ maxSize: maxBytes, sizeCalculation: (held) => jsonSize(held.ask) });
  }

  /** How many bytes the asks held take, as JSON. */
  get bytes(): number {
    return this.#held.calculatedSize;
  }

  /** The copy held of an ask, if any: it may be behind the store. */
  peek(askId: string): VersionedAsk | undefined {
    return this.#held.get(askId);
  }

  /** Whether `stored` is a copy kept here, held still or let go (not one read from the store): it may be behind. */
  isCopy(stored: VersionedAsk): boolean {
    return this.#copies.has(stored);
  }

  /** The ask as this relay stored it; an older version than the one held is not kept. */
  keep(stored: VersionedAsk): void {
    const held = this.#held.peek(stored.ask.id);
    if (held && held.version > stored.version) return;
    this.#copies.add(stored);
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
