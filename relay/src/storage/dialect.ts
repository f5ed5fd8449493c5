// What differs between the two stores, and nothing else: how a write commits, how a change is told to
// the other replicas, and time arithmetic. The records (`records/*.ts`) are one set of drizzle queries
// over this; `sqlite/store.ts` and `postgres/store.ts` each supply one.
import type { Column, SQL } from "drizzle-orm";
import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type * as schema from "./sqlite/schema.ts";
import type { AskChange, FollowChange } from "./store.ts";

/**
 * The queries' view of either database. Both schemas declare the same tables and columns (a test
 * holds them together), so one set of queries is typed once; the records only `await` query builders
 * and use what both dialects have (`returning`, `onConflictDo…`), never SQLite's `.get()`/`.run()`.
 */
export type Query = BunSQLiteDatabase<typeof schema>;
export type Tables = typeof schema;

export interface Dialect {
  readonly kind: "sqlite" | "postgres";
  readonly db: Query;
  readonly t: Tables;
  /** One write, committed durably before it resolves. */
  write<T>(fn: (q: Query) => Promise<T>): Promise<T>;
  /**
   * A write committed without waiting for the disk: only for records whose loss repeats work, never
   * loses any. `committed` runs as `transaction`'s does.
   */
  withoutWaitingForDisk<T>(fn: (q: Query) => Promise<T>, committed?: Committed): Promise<T>;
  /**
   * A statement for inside transactions, built once with placeholders and run on `tx`. SQLite prepares
   * it once (a transaction there is its one connection's, so any statement of that connection is in
   * it): building a statement anew costs ~0.3 ms after a pause. PostgreSQL builds it on each
   * transaction's connection, where postgres.js prepares each text itself.
   */
  statement(name: string, build: (q: Query) => Preparable): (tx: Query, params: Record<string, unknown>) => Promise<unknown>;
  /**
   * Several statements in one durable transaction; a throw rolls all of them back. `committed` runs
   * the moment it has committed, before the promise settles (and never throws: see `Committed`).
   */
  transaction<T>(fn: (tx: Query) => Promise<T>, committed?: Committed): Promise<T>;
  /**
   * Makes `tx` the only transaction holding `key` until it ends, so a count and the insert it allows
   * are one step for every writer: PostgreSQL takes a transaction-scoped advisory lock; SQLite's
   * transactions already take turns.
   */
  lock(tx: Query, key: string): Promise<void>;
  /** Tells every replica, when `tx` commits, that a token was revoked (`Store.tokensVersion` moves). */
  announceRevocation(tx: Query, tokenId: string): Promise<void>;
  /** Tells the other replicas, when `tx` commits, that an ask changed. */
  announce(tx: Query, change: AskChange): Promise<void>;
  /** Tells the other replicas, when `tx` commits, that this one began or stopped following an ask. */
  announceFollow(tx: Query, change: FollowChange): Promise<void>;
  /** The replicas connected to this database now (by the name each gives its connections). */
  liveReplicas(): Promise<string[]>;
  /** Milliseconds since 1970 of an ISO time column, in this dialect's time arithmetic. */
  epochMs(column: Column): SQL;
}

/** A query builder drizzle can prepare, in either dialect. */
export type Preparable = { prepare(...args: any[]): { execute(params?: Record<string, unknown>): Promise<unknown> }; toSQL(): { sql: string; params: unknown[] } };

/** A statement prepared once and run with placeholders: drizzle prepares it for either dialect. */
export function prepared<R>(builder: Preparable, name: string): (params?: Record<string, unknown>) => Promise<R[]> {
  // SQLite's `prepare()` takes no name; PostgreSQL's takes one. Both prepared queries `execute`.
  const query = builder.prepare(name);
  return async (params) => (await query.execute(params)) as R[];
}

/**
 * How many rows a write changed, as either driver reports it (bun:sqlite's `changes`, postgres.js's
 * `count`): a compare-and-set counts its rows so instead of `returning` them, which in SQLite cost
 * ~0.2 ms after a pause, a fifth of a reply's way to the agent beside the least server.
 */
export function changedRows(result: unknown): number {
  const { changes, count } = result as { changes?: number; count?: number };
  return Number(changes ?? count ?? 0);
}

/**
 * Told the moment a change is committed, in the same turn: what waits on it (an agent's result) goes
 * out before the promise jobs that carry the commit back to its caller. It must not throw, as the
 * change is stored whatever it does.
 */
export type Committed = () => void;

/** Runs promises one after another: a single SQLite connection has one transaction at a time. */
export class Serial {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(fn);
    this.#tail = result.catch(() => {});
    return result;
  }
}
