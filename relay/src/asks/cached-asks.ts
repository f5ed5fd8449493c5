// Asks kept in memory in front of the SQLite store: one relay is the only writer of its file (the
// CLI writes only tokens), so what it wrote is what the file holds, and every turn, wait and take can
// read the ask without a query. Never in front of PostgreSQL, where other replicas write too. Each
// entry carries its version: a read from the file that raced a write here never replaces what the
// write left.
import type { Ask } from "@loopback/shared/generated/types";
import { replyCount } from "@loopback/shared/ask-rules/index";
import { LRUCache } from "lru-cache";
import { onceAfterThisTurn } from "./after-this-turn.ts";
import { jsonSize } from "./json-size.ts";
import type { AppendOutcome, AskRecords, CallRow, Committed, InsertOutcome, OpenAskCap, VersionedAsk } from "../storage/store.ts";

/** Bytes of asks kept (as JSON), the most recently used last; the coldest are let go past this. */
export const CACHED_ASK_BYTES = 64 * 1024 * 1024;

export class CachedAsks implements AskRecords {
  /** Each ask with its size, counted once when kept (a hand-over changes the entry, not its size). */
  #cache: LRUCache<string, { stored: VersionedAsk; bytes: number }>;
  /**
   * The start of every fingerprint the file holds, as a number: a new ask whose fingerprint is not
   * among them has no ask to pick up, and skips the look (a query of ~0.25 ms after a pause). Asks
   * retention deletes leave theirs: a fingerprint held in vain costs that look, never a wrong answer.
   */
  #fingerprints: Promise<Set<number>>;
  /**
   * Asks written in this turn of the event loop, read from here until it ends and then sized and
   * placed in the cache: sizing an ask and placing it took 0.05–0.1 ms after a pause (marks), which
   * the ask's frame and the agent's result would otherwise wait for. Every read sees them at once.
   */
  #fresh = new Map<string, VersionedAsk>();
  #placeSoon = onceAfterThisTurn(() => this.#place());

  constructor(
    private inner: AskRecords,
    maxBytes = CACHED_ASK_BYTES,
  ) {
    this.#cache = new LRUCache({ maxSize: maxBytes, sizeCalculation: (held) => held.bytes });
    this.#fingerprints = this.#readFingerprints();
  }

  /** Every stored fingerprint, read once; a read that failed (the disk went away) is made again at the next look, which queries meanwhile. */
  #readFingerprints(): Promise<Set<number>> {
    const read = this.inner.fingerprints().then((all) => new Set(all.map(fingerprintKey)));
    read.catch(() => {});
    return read;
  }

  /** How many bytes the asks held take, as JSON: what bounds the cache. */
  get bytes(): number {
    return this.#cache.calculatedSize;
  }

  #held(id: string): VersionedAsk | undefined {
    return this.#fresh.get(id) ?? this.#cache.get(id)?.stored;
  }

  /** `stored`, kept now and placed in the cache after this turn, unless a later version is held. */
  #keepSoon(stored: VersionedAsk): void {
    if (this.#holdsLater(stored)) return;
    this.#fresh.set(stored.ask.id, stored);
    this.#placeSoon();
  }

  #place(): void {
    const fresh = [...this.#fresh.values()];
    this.#fresh.clear();
    for (const stored of fresh) this.#keep(stored);
  }

  #forget(id: string): void {
    this.#fresh.delete(id);
    this.#cache.delete(id);
  }

  /** Whether a later version of the ask than `stored` is held, in this turn's map or the cache. */
  #holdsLater(stored: VersionedAsk): boolean {
    const held = this.#fresh.get(stored.ask.id) ?? this.#cache.peek(stored.ask.id)?.stored;
    return held !== undefined && held.version > stored.version;
  }

  #keep(stored: VersionedAsk): void {
    if (this.#holdsLater(stored)) return;
    // Its size as JSON, counted without writing it out: an ask bigger than the whole cache is not
    // kept, and the version held before it is let go.
    const bytes = jsonSize(stored.ask);
    this.#cache.set(stored.ask.id, { stored, bytes });
  }

  async insert(spaceId: string, ask: Ask, fingerprint?: string, call?: CallRow, cap?: OpenAskCap, committed?: Committed): Promise<InsertOutcome> {
    const outcome = await this.inner.insert(spaceId, ask, fingerprint, call, cap, committed);
    if (outcome === "inserted") {
      this.#keepSoon({ spaceId, ask, delivered: 0, deliveredAt: null, version: 0 });
      if (fingerprint !== undefined) void this.#fingerprints.then((known) => known.add(fingerprintKey(fingerprint)), () => {});
    }
    return outcome;
  }

  async append(before: VersionedAsk, after: Ask, handedOverAt?: string, committed?: Committed): Promise<AppendOutcome> {
    const outcome = await this.inner.append(before, after, handedOverAt, committed);
    if (outcome === "appended") {
      const held = handedOverAt === undefined ? this.#held(after.id) : undefined;
      const delivered = handedOverAt === undefined ? { delivered: held?.delivered ?? before.delivered, deliveredAt: held?.deliveredAt ?? before.deliveredAt } : { delivered: replyCount(after), deliveredAt: handedOverAt };
      this.#keepSoon({ spaceId: before.spaceId, ask: after, ...delivered, version: before.version + 1 });
    } else this.#forget(after.id);
    return outcome;
  }

  async claimDelivery(askId: string, expected: number, next: number, at: string): Promise<boolean> {
    const claimed = await this.inner.claimDelivery(askId, expected, next, at);
    // Lost: another writer moved the count, and what is held of the ask is behind.
    if (!claimed) {
      this.#forget(askId);
      return false;
    }
    const handedOver = (stored: VersionedAsk) => ({ ...stored, delivered: next, deliveredAt: at });
    const fresh = this.#fresh.get(askId);
    if (fresh) this.#fresh.set(askId, handedOver(fresh));
    const held = this.#cache.get(askId);
    if (held) held.stored = handedOver(held.stored);
    return true;
  }

  async get(id: string): Promise<VersionedAsk | undefined> {
    const held = this.#held(id);
    if (held) return held;
    const stored = await this.inner.get(id);
    if (stored) this.#keep(stored);
    return stored;
  }

  /** Lets go of asks retention deleted from the file. */
  forget(ids: string[]): void {
    for (const id of ids) this.#forget(id);
  }

  async findResumable(spaceId: string, fingerprint: string, reclaimSince: string) {
    const known = await this.#fingerprints.catch(() => {
      this.#fingerprints = this.#readFingerprints();
      return undefined;
    });
    if (known && !known.has(fingerprintKey(fingerprint))) return undefined;
    return this.inner.findResumable(spaceId, fingerprint, reclaimSince);
  }

  fingerprints(): Promise<string[]> {
    return this.inner.fingerprints();
  }

  listOpen(spaceId: string, limit?: number, after?: { createdAt: string; id: string }): Promise<Ask[]> {
    return this.inner.listOpen(spaceId, limit, after);
  }

  listHeads(spaceId: string, recent: number) {
    return this.inner.listHeads(spaceId, recent);
  }

  listByIds(ids: string[]): Promise<VersionedAsk[]> {
    return this.inner.listByIds(ids);
  }

  listClosed(spaceId: string, limit: number, before?: string): Promise<Ask[]> {
    return this.inner.listClosed(spaceId, limit, before);
  }
}

/** A fingerprint's first 52 bits (a hex digest's 13 digits), which a set holds more cheaply than the string. */
const fingerprintKey = (fingerprint: string) => Number.parseInt(fingerprint.slice(0, 13), 16);
