// Asks on disk: the opening as one row, each later turn as a row of `entries`. Every write is one
// transaction, committed (synchronous=FULL) before the caller goes on to acknowledge it.
import { and, desc, eq, inArray, isNotNull, lt, ne, asc } from "drizzle-orm";
import type { Ask, Entry } from "@loopback/shared/generated/types";
import { REVISION } from "@loopback/shared/generated/revision";
import { changed, type Db } from "./db.ts";
import { asks, entries } from "./schema.ts";
import { upgradeEntry, upgradeOpening } from "./upgrade.ts";

type AskRow = typeof asks.$inferSelect;
type EntryRow = typeof entries.$inferSelect;

/** An ask as stored, with what only the relay needs to know about it. */
export interface StoredAsk {
  spaceId: string;
  ask: Ask;
  /** How many of the person's turns the agent has been handed. */
  delivered: number;
}

/** The parts of an ask fixed when it is opened. */
function opening(ask: Ask) {
  const { id, status, waiting, thread, createdAt, updatedAt, closedAt, ...rest } = ask;
  return rest;
}

export class AskStore {
  constructor(private db: Db) {}

  insert(spaceId: string, ask: Ask): void {
    this.db
      .insert(asks)
      .values({
        id: ask.id,
        spaceId,
        kind: ask.kind,
        status: ask.status,
        revision: REVISION,
        opening: JSON.stringify(opening(ask)),
        createdAt: ask.createdAt,
        updatedAt: ask.updatedAt,
        closedAt: ask.closedAt ?? null,
      })
      .run();
  }

  /**
   * Appends new turns and moves the ask to its new state in one transaction. `expectedLength` is
   * the thread length the change was decided on: if another write got there first, nothing is
   * written and false comes back.
   */
  append(before: Ask, after: Ask): boolean {
    const added = after.thread.slice(before.thread.length);
    return this.db.transaction((tx) => {
      const res = tx
        .update(asks)
        .set({ status: after.status, updatedAt: after.updatedAt, closedAt: after.closedAt ?? null })
        .where(and(eq(asks.id, after.id), eq(asks.updatedAt, before.updatedAt)))
        .run();
      if (changed(res) !== 1) return false;
      added.forEach((entry, i) => {
        tx.insert(entries)
          .values({
            askId: after.id,
            seq: before.thread.length + i,
            revision: REVISION,
            author: entry.author,
            body: JSON.stringify(entry),
            at: entry.at,
          })
          .run();
      });
      return true;
    });
  }

  /** Hands the person's turns up to `next` to the agent, if nobody else took them first. */
  claimDelivery(askId: string, expected: number, next: number): boolean {
    const res = this.db
      .update(asks)
      .set({ delivered: next })
      .where(and(eq(asks.id, askId), eq(asks.delivered, expected)))
      .run();
    return changed(res) === 1;
  }

  get(id: string): StoredAsk | undefined {
    const row = this.db.select().from(asks).where(eq(asks.id, id)).get();
    if (!row) return undefined;
    const thread = this.db.select().from(entries).where(eq(entries.askId, id)).orderBy(asc(entries.seq)).all();
    return { spaceId: row.spaceId, ask: assemble(row, thread), delivered: row.delivered };
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

  /** Asks some agent may still be waiting on: for marking them not waiting after a restart. */
  openIds(): string[] {
    return this.db.select({ id: asks.id }).from(asks).where(ne(asks.status, "closed")).all().map((r) => r.id);
  }

  private withThreads(rows: AskRow[]): Ask[] {
    if (rows.length === 0) return [];
    const byAsk = new Map<string, EntryRow[]>();
    // SQLite caps bound parameters; 500 ids a query stays well under it.
    for (let i = 0; i < rows.length; i += 500) {
      const ids = rows.slice(i, i + 500).map((r) => r.id);
      for (const e of this.db.select().from(entries).where(inArray(entries.askId, ids)).orderBy(asc(entries.seq)).all()) {
        const list = byAsk.get(e.askId);
        if (list) list.push(e);
        else byAsk.set(e.askId, [e]);
      }
    }
    return rows.map((r) => assemble(r, byAsk.get(r.id) ?? []));
  }
}

function assemble(row: AskRow, thread: EntryRow[]): Ask {
  const open = upgradeOpening(row.revision, JSON.parse(row.opening));
  return {
    ...open,
    id: row.id,
    status: row.status,
    waiting: false,
    thread: thread.map((e) => upgradeEntry(e.revision, JSON.parse(e.body)) as Entry),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    ...(row.closedAt ? { closedAt: row.closedAt } : {}),
  } as Ask;
}
