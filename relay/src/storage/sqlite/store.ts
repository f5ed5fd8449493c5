// The store over the relay's SQLite file (`db.ts`): one relay, one connection. Its writes take turns,
// since a transaction there is the connection's, not the caller's; and every connection to one file in
// this process takes the same turns, because a second one waiting for the first's write lock would
// block the only thread that could release it.
import { Placeholder, sql, type Column } from "drizzle-orm";
import type { SQLQueryBindings } from "bun:sqlite";
import { newId } from "../../ids.ts";
import { openDb, type Db } from "./db.ts";
import { Serial, type Committed, type Dialect, type Preparable, type Query } from "../dialect.ts";
import * as schema from "./schema.ts";
import { CachedTokens } from "./cached-tokens.ts";
import { storeOver } from "../records/store-over.ts";
import type { Store } from "../store.ts";
import { DiskSpace } from "../disk-space.ts";

const turnsByFile = new Map<string, Serial>();

export function sqliteDialect(db: Db, replica: string): Dialect {
  const client = db.$client;
  const turns = turnsByFile.get(client.filename) ?? new Serial();
  turnsByFile.set(client.filename, turns);
  const q = db as unknown as Query;
  // Every write runs these: prepared once, not parsed again on each.
  const [begin, commit, rollback, light, durable] = ["BEGIN IMMEDIATE", "COMMIT", "ROLLBACK", "PRAGMA synchronous = NORMAL", "PRAGMA synchronous = FULL"].map((text) => client.prepare(text));
  const inTransaction = async <T>(fn: (tx: Query) => Promise<T>, committed?: Committed): Promise<T> => {
    // IMMEDIATE takes the write lock at once: another process's writer waits (busy_timeout), and a
    // compare-and-set read inside sees the row as it stands.
    begin.run();
    let result: T;
    try {
      result = await fn(q);
      commit.run();
    } catch (e) {
      // SQLite may already have rolled back (a full disk, an I/O error): the error worth telling is `e`.
      if (client.inTransaction) rollback.run();
      throw e;
    }
    committed?.();
    return result;
  };
  return {
    kind: "sqlite",
    db: q,
    t: schema,
    // Reads do not take turns: on this connection they may see an open transaction's writes, which
    // roll back only on an error (a lost compare-and-set writes nothing and commits).
    write: (fn) => turns.run(() => fn(q)),
    withoutWaitingForDisk: (fn, committed) =>
      turns.run(async () => {
        light.run();
        try {
          return await inTransaction(fn, committed);
        } finally {
          durable.run();
        }
      }),
    statement: (_name, build) => plainStatement(client, build(q)),
    transaction: (fn, committed) => turns.run(() => inTransaction(fn, committed)),
    lock: async () => {},
    // Another connection's commit moves `data_version`, which `tokensVersion` reads: nothing to send.
    announceRevocation: async () => {},
    // One relay per file: there is nobody else to tell.
    announce: async () => {},
    announceFollow: async () => {},
    liveReplicas: async () => [replica],
    // Julian days since 4714 BC; 2440587.5 of them fell before 1970.
    epochMs: (column: Column) => sql`((julianday(${column}) - 2440587.5) * 86400000)`,
  };
}

/**
 * A drizzle statement run as bun:sqlite's own, its placeholders filled in their order: a write in a
 * hot transaction skips drizzle's wrapping of every run (its thenable, its logger, its placeholder
 * search). A statement that returns columns answers its rows as objects, named as it names them.
 */
function plainStatement(client: Db["$client"], built: Preparable): (tx: Query, params: Record<string, unknown>) => Promise<unknown> {
  const { sql: text, params } = built.toSQL();
  const statement = client.prepare(text);
  const values = (given: Record<string, unknown>) => params.map((p) => (p instanceof Placeholder ? given[p.name] : p)) as SQLQueryBindings[];
  const rows = statement.columnNames.length > 0;
  return async (_tx, given) => (rows ? statement.all(...values(given)) : statement.run(...values(given)));
}

/** The store over the SQLite file in `dataDir`, brought up to date by its migrations. */
export function openSqliteStore(dataDir: string): Store {
  return withDiskSpace(new DiskSpace(dataDir), sqliteStore(openDb(dataDir), { closeDb: true }));
}

/** The store with every kind of record answering a full disk as `storage.full`. */
function withDiskSpace(space: DiskSpace, store: Store): Store {
  return {
    ...store,
    asks: space.guard(store.asks),
    tokens: space.guard(store.tokens),
    uploads: space.guard(store.uploads),
    sessions: space.guard(store.sessions),
    calls: space.guard(store.calls),
    tasks: space.guard(store.tasks),
    tickets: space.guard(store.tickets),
    failures: space.guard(store.failures),
    push: space.guard(store.push),
    follows: space.guard(store.follows),
    upkeep: space.guard(store.upkeep),
    space,
  };
}

/** The store over an open SQLite database. */
function sqliteStore(db: Db, opts: { closeDb?: boolean } = {}): Store {
  const replica = newId("rpl");
  const dataVersion = db.$client.query<{ data_version: number }, []>("PRAGMA data_version");
  // No `listen`: nothing else writes asks to this file (the CLI writes only tokens).
  const store = storeOver(sqliteDialect(db, replica), replica, {
    // Tokens are revoked by the CLI, on its own connection: its commit moves this connection's `data_version`.
    tokensVersion: () => dataVersion.get()!.data_version,
    close: async () => {
      if (opts.closeDb) db.$client.close();
    },
  });
  return { ...store, tokens: new CachedTokens(store.tokens, () => dataVersion.get()!.data_version) };
}
