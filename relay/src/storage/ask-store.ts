// Asks on disk: the opening as one row, each later turn as a row of `entries`. Every write is one
// transaction, committed (synchronous=FULL) before the caller goes on to acknowledge it.
import { and, asc, desc, eq, inArray, isNotNull, lt, ne, sql } from "drizzle-orm";
import type { Ask } from "@loopback/shared/generated/types";
import { REVISION } from "@loopback/shared/generated/revision";
import { replyCount } from "@loopback/shared/ask-rules/index";
import { changed, withoutWaitingForDisk, type Db } from "./db.ts";
import { asks, entries } from "./schema.ts";
import { assemble } from "./upgrade.ts";

type AskRow = typeof asks.$inferSelect;
type EntryRow = typeof entries.$inferSelect;

/** An ask as stored, with what only the relay needs to know about it. */
export interface StoredAsk {
  spaceId: string;
  ask: Ask;
  /** How many of the person's turns the agent has been handed. */
  delivered: number;
  /** When the latest of them was handed over (ISO time), if ever. */
  deliveredAt: string | null;
}

/** The parts of an ask fixed when it is opened. */
function opening(ask: Ask) {
  const { id, status, waiting, thread, createdAt, updatedAt, closedAt, ...rest } = ask;
  return rest;
}

/**
 * Asks are read on every turn, every wait and every snapshot: the most recently written are kept in
 * memory, up to this much JSON.
 */
export const CACHE_BYTES = 256 * 1024 * 1024;

export class AskStore {
  // Write-through: this process is the only writer of asks (the CLI writes only tokens), so the
  // cache cannot go stale. Oldest written first, so eviction takes the coldest.
  #cache = new Map<string, StoredAsk & { bytes: number }>();
  #cacheBytes = 0;
  // The statements of every turn, prepared once.
  #byId;
  #threadOf;
  #insertAsk;
  #moveAsk;
  #insertEntry;
  #claim;
  #byFingerprint;

  constructor(private db: Db) {
    const p = sql.placeholder;
    this.#byFingerprint = db
      .select({ id: asks.id })
      .from(asks)
      .where(and(eq(asks.spaceId, p("spaceId")), eq(asks.fingerprint, p("fingerprint"))))
      .orderBy(desc(asks.createdAt))
      .limit(5)
      .prepare();
    this.#byId = db.select().from(asks).where(eq(asks.id, p("id"))).prepare();
    this.#threadOf = db.select().from(entries).where(eq(entries.askId, p("id"))).orderBy(asc(entries.seq)).prepare();
    this.#insertAsk = db
      .insert(asks)
      .values({ id: p("id"), spaceId: p("spaceId"), kind: p("kind"), status: p("status"), revision: p("revision"), opening: p("opening"), createdAt: p("createdAt"), updatedAt: p("updatedAt"), fingerprint: p("fingerprint") })
      .prepare();
    this.#moveAsk = db
      .update(asks)
      .set({ status: sql`${p("status")}`, updatedAt: sql`${p("updatedAt")}`, closedAt: sql`${p("closedAt")}` })
      .where(and(eq(asks.id, p("id")), eq(asks.updatedAt, p("before"))))
      .prepare();
    this.#insertEntry = db
      .insert(entries)
      .values({ askId: p("askId"), seq: p("seq"), revision: p("revision"), author: p("author"), body: p("body"), at: p("at") })
      .prepare();
    this.#claim = db
      .update(asks)
      .set({ delivered: sql`${p("next")}`, deliveredAt: sql`${p("at")}` })
      .where(and(eq(asks.id, p("id")), eq(asks.delivered, p("expected"))))
      .prepare();
  }

  private remember(stored: StoredAsk, bytes: number): void {
    this.forget(stored.ask.id);
    this.#cache.set(stored.ask.id, { ...stored, bytes });
    this.#cacheBytes += bytes;
    for (const [id, old] of this.#cache) {
      if (this.#cacheBytes <= CACHE_BYTES) break;
      this.#cache.delete(id);
      this.#cacheBytes -= old.bytes;
    }
  }

  private forget(id: string): void {
    const old = this.#cache.get(id);
    if (!old) return;
    this.#cache.delete(id);
    this.#cacheBytes -= old.bytes;
  }

  /**
   * Stores a new ask. Nobody has been told it is stored yet (the agent's call is still waiting), so
   * the commit does not wait for the disk: a crashed process keeps it, and the next durable commit
   * (a reply, a task) carries it to disk with everything before it.
   */
  insert(spaceId: string, ask: Ask, fingerprint?: string): void {
    const openingJson = JSON.stringify(opening(ask));
    withoutWaitingForDisk(this.db, () => this.#insertAsk.run({
      fingerprint: fingerprint ?? null,
      id: ask.id,
      spaceId,
      kind: ask.kind,
      status: ask.status,
      revision: REVISION,
      opening: openingJson,
      createdAt: ask.createdAt,
      updatedAt: ask.updatedAt,
    }));
    this.remember({ spaceId, ask, delivered: 0, deliveredAt: null }, openingJson.length);
  }

  /**
   * Appends new turns and moves the ask to its new state in one transaction, decided on `before`:
   * if another write got there first (its `updatedAt` moved on), nothing is written and false
   * comes back.
   */
  append(before: Ask, after: Ask): boolean {
    const added = after.thread.slice(before.thread.length);
    const bodies = added.map((entry) => JSON.stringify(entry));
    const ok = this.db.$client.transaction(() => {
      const res = this.#moveAsk.run({ id: after.id, status: after.status, updatedAt: after.updatedAt, closedAt: after.closedAt ?? null, before: before.updatedAt });
      if (changed(res) !== 1) return false;
      added.forEach((entry, i) => {
        this.#insertEntry.run({ askId: after.id, seq: before.thread.length + i, revision: REVISION, author: entry.author, body: bodies[i], at: entry.at });
      });
      return true;
    })();
    if (ok) {
      const cached = this.#cache.get(after.id);
      if (cached) this.remember({ spaceId: cached.spaceId, ask: after, delivered: cached.delivered, deliveredAt: cached.deliveredAt }, cached.bytes + bodies.reduce((n, b) => n + b.length, 0));
      else this.forget(after.id);
    }
    return ok;
  }

  /**
   * Hands the person's turns up to `next` to the agent, if nobody else took them first. The record
   * is written without waiting for the disk: it survives a crashed process (SQLite's WAL is in the
   * OS by then), and if a power cut lost it the reply would be handed over again, never lost.
   */
  claimDelivery(askId: string, expected: number, next: number, at: string): boolean {
    const res = withoutWaitingForDisk(this.db, () => this.#claim.run({ id: askId, expected, next, at }));
    if (changed(res) !== 1) return false;
    const cached = this.#cache.get(askId);
    if (cached) {
      cached.delivered = next;
      cached.deliveredAt = at;
    }
    return true;
  }

  /**
   * The newest ask opened with this fingerprint that an agent asking again should pick up: still the
   * person's move, holding a reply no agent has been handed, or whose reply was handed over since
   * `reclaimSince` (the agent may have restarted before reading it). `reclaimed` says it was the last.
   */
  findResumable(spaceId: string, fingerprint: string, reclaimSince: string): { stored: StoredAsk; reclaimed: boolean } | undefined {
    const rows = this.#byFingerprint.all({ spaceId, fingerprint });
    for (const { id } of rows) {
      const stored = this.get(id);
      if (!stored) continue;
      if (stored.ask.status === "awaiting_human" || replyCount(stored.ask) > stored.delivered) return { stored, reclaimed: false };
      if (stored.deliveredAt && stored.deliveredAt >= reclaimSince) return { stored, reclaimed: true };
    }
    return undefined;
  }

  get(id: string): StoredAsk | undefined {
    const cached = this.#cache.get(id);
    if (cached) return cached;
    const row = this.#byId.get({ id });
    if (!row) return undefined;
    const thread = this.#threadOf.all({ id });
    const stored = { spaceId: row.spaceId, ask: assemble(row, thread), delivered: row.delivered, deliveredAt: row.deliveredAt };
    this.remember(stored, row.opening.length + thread.reduce((n, e) => n + e.body.length, 0));
    return stored;
  }

  /** Every open ask of a space, newest first. */
  listOpen(spaceId: string): Ask[] {
    const rows = this.db
      .select()
      .from(asks)
      .where(and(eq(asks.spaceId, spaceId), ne(asks.status, "closed")))
      .orderBy(desc(asks.createdAt))
      .all();
    return this.withThreads(rows);
  }

  /** Closed asks of a space, most recently closed first, closed before `before` when given. */
  listClosed(spaceId: string, limit: number, before?: string): Ask[] {
    const rows = this.db
      .select()
      .from(asks)
      .where(and(eq(asks.spaceId, spaceId), isNotNull(asks.closedAt), before ? lt(asks.closedAt, before) : undefined))
      .orderBy(desc(asks.closedAt))
      .limit(limit)
      .all();
    return this.withThreads(rows);
  }

  private withThreads(rows: AskRow[]): Ask[] {
    const missing = rows.filter((r) => !this.#cache.has(r.id));
    const byAsk = new Map<string, EntryRow[]>();
    // SQLite caps bound parameters; 500 ids a query stays well under it.
    for (let i = 0; i < missing.length; i += 500) {
      const ids = missing.slice(i, i + 500).map((r) => r.id);
      for (const e of this.db.select().from(entries).where(inArray(entries.askId, ids)).orderBy(asc(entries.seq)).all()) {
        const list = byAsk.get(e.askId);
        if (list) list.push(e);
        else byAsk.set(e.askId, [e]);
      }
    }
    return rows.map((r) => this.#cache.get(r.id)?.ask ?? assemble(r, byAsk.get(r.id) ?? []));
  }
}
