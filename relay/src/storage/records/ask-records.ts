// Asks in the store: the opening as one row, each later turn as a row of `entries`. A change is decided
// on the version the writer read and commits only while the ask is still at it (compare-and-set on
// `asks.version`), so two writers on two replicas resolve as one winner and one "not your turn".
import { and, asc, count, desc, eq, inArray, isNotNull, lt, ne, or, sql } from "drizzle-orm";
import type { Ask, AskStatus } from "@loopback/shared/generated/types";
import { REVISION } from "@loopback/shared/generated/revision";
import { replyCount } from "@loopback/shared/ask-rules/index";
import { changedRows, prepared, type Committed, type Dialect } from "../dialect.ts";
import type { asks, entries } from "../sqlite/schema.ts";
import type { AppendOutcome, AskChange, AskHead, AskRecords, CallRow, InsertOutcome, OpenAskCap, VersionedAsk } from "../store.ts";
import { assemble } from "../upgrade.ts";
import { stateOf } from "../ask-as-of.ts";

type AskRow = typeof asks.$inferSelect;
type EntryRow = typeof entries.$inferSelect;

/** The parts of an ask fixed when it is opened. */
export function opening(ask: Ask) {
  const { id, status, waiting, thread, createdAt, updatedAt, closedAt, ...rest } = ask;
  return rest;
}

/** A new ask refused at a cap, thrown to roll its transaction back. */
class Refused extends Error {
  constructor(readonly outcome: Exclude<InsertOutcome, "inserted">) {
    super(outcome);
  }
}

/** A change decided on a version the ask has left, thrown to roll back what was sent with its compare-and-set. */
class NotYourTurn extends Error {}

/**
 * An open ask's statuses, named rather than "not closed": the count before every new ask then seeks
 * them in `asks_open` (space, status), where "not closed" read every ask the space ever kept (0.54 vs
 * 0.15 ms after a pause with 3,000 closed).
 */
export const OPEN_STATUSES: Exclude<AskStatus, "closed">[] = ["awaiting_human", "awaiting_agent"];

/** Bound parameters a query may carry stay well under SQLite's cap with this many ids at once. */
const IDS_PER_QUERY = 500;

export class SqlAskRecords implements AskRecords {
  #withThread;
  #threadOf;
  #byFingerprint;
  #insertAsk;
  #insertCall;
  #openCounts;
  #insertEntry;
  #move;
  #moveHandingOver;
  #claim;

  constructor(
    private d: Dialect,
    private replica: string,
  ) {
    const { db, t } = d;
    const p = sql.placeholder;
    // Every wait and every turn reads these: prepared once.
    // The row and its thread in one statement, so of one moment, and in one round trip to PostgreSQL.
    this.#withThread = prepared<{ ask: AskRow; entry: EntryRow | null }>(
      db.select({ ask: t.asks, entry: t.entries }).from(t.asks).leftJoin(t.entries, eq(t.entries.askId, t.asks.id)).where(eq(t.asks.id, p("id"))).orderBy(asc(t.entries.seq)),
      "ask_with_thread",
    );
    this.#threadOf = prepared<EntryRow>(db.select().from(t.entries).where(eq(t.entries.askId, p("id"))).orderBy(asc(t.entries.seq)), "ask_thread");
    // Every new ask looks for one to pick up first: building the query each time cost ~0.3 ms after a pause.
    this.#byFingerprint = prepared<AskRow>(
      db
        .select()
        .from(t.asks)
        .where(and(eq(t.asks.spaceId, p("spaceId")), eq(t.asks.fingerprint, p("fingerprint"))))
        .orderBy(desc(t.asks.createdAt))
        .limit(5),
      "asks_by_fingerprint",
    );
    // What opening an ask and every turn write, built once.
    const at = (name: string) => sql`${p(name)}`;
    this.#insertAsk = d.statement("insert_ask", (q) =>
      q.insert(t.asks).values({
        id: at("id"),
        spaceId: at("spaceId"),
        kind: at("kind"),
        status: at("status"),
        revision: at("revision"),
        opening: at("opening"),
        createdAt: at("createdAt"),
        updatedAt: at("updatedAt"),
        fingerprint: at("fingerprint"),
        tokenId: at("tokenId"),
        version: 0,
      }),
    );
    this.#insertCall = d.statement("insert_call", (q) =>
      q.insert(t.waitingCalls).values({
        id: at("id"),
        sessionId: at("sessionId"),
        requestId: at("requestId"),
        tool: at("tool"),
        askId: at("askId"),
        fromTurn: at("fromTurn"),
        progressToken: at("progressToken"),
        createdAt: at("createdAt"),
      }),
    );
    // Every capped ask counts what is open before it, its token's and its space's in one statement.
    this.#openCounts = d.statement("open_asks_counts", (q) =>
      q
        // Named, so either dialect's statement answers rows with these keys.
        .select({ byToken: sql<number>`coalesce(sum(case when ${t.asks.tokenId} = ${p("tokenId")} then 1 else 0 end), 0)`.as("byToken"), bySpace: count().as("bySpace") })
        .from(t.asks)
        .where(and(eq(t.asks.spaceId, p("spaceId")), inArray(t.asks.status, OPEN_STATUSES))),
    );
    this.#insertEntry = d.statement("insert_entry", (q) =>
      q.insert(t.entries).values({ askId: at("askId"), seq: at("seq"), revision: at("revision"), author: at("author"), body: at("body"), at: at("at") }),
    );
    this.#move = d.statement("move_ask", (q) =>
      q
        .update(t.asks)
        .set({ status: at("status"), updatedAt: at("updatedAt"), closedAt: at("closedAt"), version: at("version") })
        .where(and(eq(t.asks.id, p("id")), eq(t.asks.version, p("before")))),
    );
    this.#moveHandingOver = d.statement("move_ask_handing_over", (q) =>
      q
        .update(t.asks)
        .set({ status: at("status"), updatedAt: at("updatedAt"), closedAt: at("closedAt"), version: at("version"), delivered: at("delivered"), deliveredAt: at("deliveredAt") })
        .where(and(eq(t.asks.id, p("id")), eq(t.asks.version, p("before")))),
    );
    this.#claim = d.statement("claim_delivery", (q) =>
      q
        .update(t.asks)
        .set({ delivered: at("next"), deliveredAt: at("at") })
        .where(and(eq(t.asks.id, p("id")), eq(t.asks.delivered, p("expected")))),
    );
  }

  insert(spaceId: string, ask: Ask, fingerprint?: string, call?: CallRow, cap?: OpenAskCap, committed?: Committed): Promise<InsertOutcome> {
    const row = {
      id: ask.id,
      spaceId,
      kind: ask.kind,
      status: ask.status,
      revision: REVISION,
      opening: JSON.stringify(opening(ask)),
      createdAt: ask.createdAt,
      updatedAt: ask.updatedAt,
      fingerprint: fingerprint ?? null,
      tokenId: cap?.tokenId ?? null,
    };
    return this.d.withoutWaitingForDisk(async (q): Promise<InsertOutcome> => {
      // With the ask, the record of the call that follows it: no moment shows the ask without it.
      if (call) await this.#insertCall(q, { ...call, askId: call.askId ?? null, fromTurn: call.fromTurn ?? 0, progressToken: call.progressToken ?? null });
      await this.#insertAsk(q, row);
      // Sent only if this commits.
      await this.d.announce(q, { askId: ask.id, spaceId, version: 0, replica: this.replica, ...asLeft(ask) });
      if (cap) {
        // Stored first, then counted, itself included, under the space's lock, held to the commit: a
        // writer that takes the lock after this one sees this ask once it is committed, so concurrent
        // asks on any replica cannot pass either cap, and the lock is held for one count alone.
        await this.d.lock(q, `open_asks:${spaceId}`);
        const [open] = (await this.#openCounts(q, { spaceId, tokenId: cap.tokenId })) as { byToken: number | string | null; bySpace: number | string }[];
        // Thrown, so the ask and its call's record roll back with the refusal.
        if (Number(open?.byToken ?? 0) > cap.maxPerToken) throw new Refused("token_full");
        if (Number(open?.bySpace ?? 0) > cap.maxPerSpace) throw new Refused("space_full");
      }
      return "inserted";
    }, committed).catch((e) => {
      if (e instanceof Refused) return e.outcome;
      throw e;
    });
  }

  async append(before: VersionedAsk, after: Ask, handedOverAt?: string, committed?: Committed): Promise<AppendOutcome> {
    const from = before.ask.thread.length;
    const added = after.thread.slice(from);
    const version = before.version + 1;
    const move = { id: after.id, before: before.version, status: after.status, updatedAt: after.updatedAt, closedAt: after.closedAt ?? null, version };
    return this.d
      .transaction(async (tx) => {
        // Sent together, in order (PostgreSQL pipelines them on the transaction's connection, one
        // round trip for all): the compare-and-set's answer decides, and when it moved nothing the
        // turn's rows (and a conflict they ran into) roll back with the transaction.
        const [moved, ...rest] = await Promise.allSettled([
          handedOverAt === undefined ? this.#move(tx, move) : this.#moveHandingOver(tx, { ...move, delivered: replyCount(after), deliveredAt: handedOverAt }),
          ...added.map((entry, i) => this.#insertEntry(tx, { askId: after.id, seq: from + i, revision: REVISION, author: entry.author, body: JSON.stringify(entry), at: entry.at })),
          this.d.announce(tx, { askId: after.id, spaceId: before.spaceId, version, replica: this.replica, ...asLeft(after) }),
        ]);
        if (moved.status === "rejected") throw moved.reason;
        if (changedRows(moved.value) !== 1) throw new NotYourTurn();
        for (const r of rest) if (r.status === "rejected") throw r.reason;
        return "appended" as const;
      }, committed)
      .catch((e) => {
        if (e instanceof NotYourTurn) return "not_your_turn" as const;
        throw e;
      });
  }

  claimDelivery(askId: string, expected: number, next: number, at: string): Promise<boolean> {
    // Written without waiting for the disk: if a power cut lost it, the reply is handed over again, never lost.
    return this.d.withoutWaitingForDisk(async (q) => changedRows(await this.#claim(q, { id: askId, expected, next, at })) === 1);
  }

  async get(id: string): Promise<VersionedAsk | undefined> {
    const rows = await this.#withThread({ id });
    if (!rows.length) return undefined;
    return stored(rows[0].ask, rows.flatMap((r) => (r.entry ? [r.entry] : [])));
  }

  async findResumable(spaceId: string, fingerprint: string, reclaimSince: string) {
    for (const row of await this.#byFingerprint({ spaceId, fingerprint })) {
      const found = stored(row, await this.#threadOf({ id: row.id }));
      if (found.ask.status === "awaiting_human" || replyCount(found.ask) > found.delivered) return { stored: found, reclaimed: false };
      if (found.deliveredAt && found.deliveredAt >= reclaimSince) return { stored: found, reclaimed: true };
    }
    return undefined;
  }

  async fingerprints(): Promise<string[]> {
    const { db, t } = this.d;
    const rows = await db.selectDistinct({ fingerprint: t.asks.fingerprint }).from(t.asks).where(isNotNull(t.asks.fingerprint));
    return rows.map((r) => r.fingerprint!);
  }

  async listOpen(spaceId: string, limit?: number, after?: { createdAt: string; id: string }): Promise<Ask[]> {
    const { db, t } = this.d;
    // Keyset paging on (createdAt, id): asks opened in the same millisecond are neither skipped nor repeated.
    const beyond = after ? or(lt(t.asks.createdAt, after.createdAt), and(eq(t.asks.createdAt, after.createdAt), lt(t.asks.id, after.id))) : undefined;
    const query = db
      .select()
      .from(t.asks)
      .where(and(eq(t.asks.spaceId, spaceId), ne(t.asks.status, "closed"), beyond))
      .orderBy(desc(t.asks.createdAt), desc(t.asks.id));
    const rows = limit === undefined ? await query : await query.limit(limit);
    return this.withThreads(rows);
  }

  async listClosed(spaceId: string, limit: number, before?: string): Promise<Ask[]> {
    const { db, t } = this.d;
    const rows = await db
      .select()
      .from(t.asks)
      .where(and(eq(t.asks.spaceId, spaceId), isNotNull(t.asks.closedAt), before ? lt(t.asks.closedAt, before) : undefined))
      .orderBy(desc(t.asks.closedAt))
      .limit(limit);
    return this.withThreads(rows);
  }

  async listHeads(spaceId: string, recent: number): Promise<{ open: AskHead[]; recent: AskHead[] }> {
    const { db, t } = this.d;
    const head = { id: t.asks.id, version: t.asks.version };
    const [open, closed] = await Promise.all([
      db.select(head).from(t.asks).where(and(eq(t.asks.spaceId, spaceId), ne(t.asks.status, "closed"))).orderBy(desc(t.asks.createdAt), desc(t.asks.id)),
      db.select(head).from(t.asks).where(and(eq(t.asks.spaceId, spaceId), isNotNull(t.asks.closedAt))).orderBy(desc(t.asks.closedAt)).limit(recent),
    ]);
    return { open, recent: closed };
  }

  async listByIds(ids: string[]): Promise<VersionedAsk[]> {
    const { db, t } = this.d;
    const rows: AskRow[] = [];
    for (let i = 0; i < ids.length; i += IDS_PER_QUERY) rows.push(...(await db.select().from(t.asks).where(inArray(t.asks.id, ids.slice(i, i + IDS_PER_QUERY)))));
    const threads = await this.threadsOf(rows);
    return rows.map((row) => stored(row, threads.get(row.id) ?? []));
  }

  private async withThreads(rows: AskRow[]): Promise<Ask[]> {
    const threads = await this.threadsOf(rows);
    return rows.map((r) => assemble(r, threads.get(r.id) ?? []));
  }

  /** The thread of each of `rows`' asks, by ask id (none for an ask without entries). */
  private async threadsOf(rows: AskRow[]): Promise<Map<string, EntryRow[]>> {
    const { db, t } = this.d;
    const byAsk = new Map<string, EntryRow[]>();
    for (let i = 0; i < rows.length; i += IDS_PER_QUERY) {
      const ids = rows.slice(i, i + IDS_PER_QUERY).map((r) => r.id);
      for (const e of await db.select().from(t.entries).where(inArray(t.entries.askId, ids)).orderBy(asc(t.entries.seq))) {
        const list = byAsk.get(e.askId);
        if (list) list.push(e);
        else byAsk.set(e.askId, [e]);
      }
    }
    return byAsk;
  }
}

/** What a change tells the other replicas of the ask it left, beyond the ask's id. */
export function asLeft(ask: Ask): Pick<AskChange, "turns" | "status" | "updatedAt" | "closedAt"> {
  const { version: _version, ...state } = stateOf(ask, 0);
  return state;
}

function stored(row: AskRow, thread: EntryRow[]): VersionedAsk {
  return { spaceId: row.spaceId, ask: assemble(row, thread), delivered: row.delivered, deliveredAt: row.deliveredAt, version: row.version };
}
