// The store over the relay's SQLite file (`db.ts`): one relay, one connection. Its writes take turns,
// since a transaction there is the connection's, not the caller's; and every connection to one file in
// this process takes the same turns, because a second one waiting for the first's write lock would
// block the only thread that could release it.
import { sql, type Column } from "drizzle-orm";
import { newId } from "../ids.ts";
import { openDb, type Db } from "./db.ts";
import { Serial, type Dialect, type Query } from "./dialect.ts";
import * as schema from "./schema.ts";
import { CachedTokens } from "./cached-tokens.ts";
import { storeOver } from "./records/store-over.ts";
import type { Store } from "./store.ts";

const turnsByFile = new Map<string, Serial>();

export function sqliteDialect(db: Db, replica: string): Dialect {
  const client = db.$client;
  const turns = turnsByFile.get(client.filename) ?? new Serial();
  turnsByFile.set(client.filename, turns);
  const q = db as unknown as Query;
  const inTransaction = async <T>(fn: (tx: Query) => Promise<T>): Promise<T> => {
    // IMMEDIATE takes the write lock at once: another process's writer waits (busy_timeout), and a
    // compare-and-set read inside sees the row as it stands.
    client.run("BEGIN IMMEDIATE");
    try {
      const result = await fn(q);
      client.run("COMMIT");
      return result;
    } catch (e) {
      client.run("ROLLBACK");
      throw e;
    }
  };
  return {
    kind: "sqlite",
    db: q,
    t: schema,
    // Reads do not take turns: on this connection they may see an open transaction's writes, which
    // roll back only on an error (a lost compare-and-set writes nothing and commits).
    write: (fn) => turns.run(() => fn(q)),
    withoutWaitingForDisk: (fn) =>
      turns.run(async () => {
        client.query("PRAGMA synchronous = NORMAL").run();
        try {
          return await inTransaction(fn);
        } finally {
          client.query("PRAGMA synchronous = FULL").run();
        }
      }),
    statement: (name, build) => {
      const query = build(q).prepare(name);
      return (_tx, params) => query.execute(params);
    },
    transaction: (fn) => turns.run(() => inTransaction(fn)),
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

/** The store over the SQLite file in `dataDir`, brought up to date by its migrations. */
export function openSqliteStore(dataDir: string): Store {
  return sqliteStore(openDb(dataDir), { closeDb: true });
}

/** The store over an open SQLite database. */
function sqliteStore(db: Db, opts: { closeDb?: boolean } = {}): Store {
  const replica = newId("rpl");
  const dataVersion = db.$client.query<{ data_version: number }, []>("PRAGMA data_version");
  const store = storeOver(sqliteDialect(db, replica), replica, {
    // Tokens are revoked by the CLI, on its own connection: its commit moves this connection's `data_version`.
    tokensVersion: () => dataVersion.get()!.data_version,
    // Nothing else writes asks to this file (the CLI writes only tokens): no changes come from elsewhere.
    listen: async (_onChange, onReady) => {
      onReady?.();
      return { close: async () => {} };
    },
    close: async () => {
      if (opts.closeDb) db.$client.close();
    },
  });
  return { ...store, tokens: new CachedTokens(store.tokens, () => dataVersion.get()!.data_version) };
}
