// Asks kept in memory in front of the SQLite store: one relay is the only writer of its file (the
// CLI writes only tokens), so what it wrote is what the file holds, and every turn, wait and take can
// read the ask without a query. Never in front of PostgreSQL, where other replicas write too. Each
// entry carries its version: a read from the file that raced a write here never replaces what the
// write left.
import type { Ask } from "@loopback/shared/generated/types";
import type { AppendOutcome, AskRecords, CallRow, VersionedAsk } from "../storage/store.ts";

/** Asks kept, the most recently used last; the coldest are let go past this many. */
export const CACHED_ASKS = 20_000;

export class CachedAsks implements AskRecords {
  #cache = new Map<string, VersionedAsk>();

  constructor(private inner: AskRecords) {}

  #keep(stored: VersionedAsk): void {
    const held = this.#cache.get(stored.ask.id);
    if (held && held.version > stored.version) return;
    this.#cache.delete(stored.ask.id);
    this.#cache.set(stored.ask.id, stored);
    if (this.#cache.size > CACHED_ASKS) this.#cache.delete(this.#cache.keys().next().value!);
  }

  async insert(spaceId: string, ask: Ask, fingerprint?: string, call?: CallRow): Promise<void> {
    await this.inner.insert(spaceId, ask, fingerprint, call);
    this.#keep({ spaceId, ask, delivered: 0, deliveredAt: null, version: 0 });
  }

  async append(before: VersionedAsk, after: Ask): Promise<AppendOutcome> {
    const outcome = await this.inner.append(before, after);
    if (outcome === "appended") {
      const held = this.#cache.get(after.id);
      this.#keep({ spaceId: before.spaceId, ask: after, delivered: held?.delivered ?? before.delivered, deliveredAt: held?.deliveredAt ?? before.deliveredAt, version: before.version + 1 });
    } else this.#cache.delete(after.id);
    return outcome;
  }

  async claimDelivery(askId: string, expected: number, next: number, at: string): Promise<boolean> {
    const claimed = await this.inner.claimDelivery(askId, expected, next, at);
    const held = this.#cache.get(askId);
    if (held) {
      if (claimed) this.#cache.set(askId, { ...held, delivered: next, deliveredAt: at });
      else this.#cache.delete(askId);
    }
    return claimed;
  }

  async get(id: string): Promise<VersionedAsk | undefined> {
    const held = this.#cache.get(id);
    if (held) return held;
    const stored = await this.inner.get(id);
    if (stored) this.#keep(stored);
    return stored;
  }

  /** Lets go of asks retention deleted from the file. */
  forget(ids: string[]): void {
    for (const id of ids) this.#cache.delete(id);
  }

  findResumable(spaceId: string, fingerprint: string, reclaimSince: string) {
    return this.inner.findResumable(spaceId, fingerprint, reclaimSince);
  }

  listOpen(spaceId: string): Promise<Ask[]> {
    return this.inner.listOpen(spaceId);
  }

  listClosed(spaceId: string, limit: number, before?: string): Promise<Ask[]> {
    return this.inner.listClosed(spaceId, limit, before);
  }
}
