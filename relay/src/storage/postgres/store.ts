// The store over PostgreSQL, for any number of relay replicas on one database. postgres.js pools the
// connections and prepares every statement; a change to an ask sends a NOTIFY inside its own
// transaction, so the other replicas hear of it exactly when it commits, and in commit order.
import { sql, type Column } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import { PostgresJsSession, PostgresJsTransaction } from "drizzle-orm/postgres-js/session";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { join } from "node:path";
import postgres from "postgres";
import { newId } from "../../ids.ts";
import { DatabaseReach, guardedBy } from "../database-reach.ts";
import type { Committed, Dialect, Query } from "../dialect.ts";
import * as pgSchema from "./schema.ts";
import type * as schema from "../sqlite/schema.ts";
import { storeOver } from "../records/store-over.ts";
import { PgAskRecords } from "./ask-records.ts";
import type { AskChange, FollowChange, SharedStore } from "../store.ts";

const MIGRATIONS = join(import.meta.dir, "pg-migrations");
/** The channel every replica listens on for ask changes. */
export const ASK_CHANNEL = "loopback_asks";
/** The channel every replica listens on for revoked tokens. */
export const TOKEN_CHANNEL = "loopback_tokens";
/** The channel every replica listens on for which replica follows which ask. */
export const FOLLOW_CHANNEL = "loopback_follows";
/** Every connection of a replica names it: the database's list of connections says which replicas are alive. */
const APPLICATION_PREFIX = "loopback ";
/** Held while migrating, so replicas starting together apply each migration once. */
const MIGRATION_LOCK = 7_310_010;
/** Connections per replica; the listener holds one more of its own. */
export const DEFAULT_POOL = 10;
/** A connection not ready by then is given up, so a request fails with 503 rather than waiting for a database out of reach. */
const CONNECT_TIMEOUT_S = 2;
/**
 * Seconds before connecting again after a connection failed `n` times in a row. postgres.js's own
 * grows to 20 s, which held replicas away from a database for that long after it was back; capped, a
 * replica is connected again within a quarter of a second of it.
 */
const reconnectAfterS = (n: number) => Math.min(0.05 * 2 ** n, 0.25);

export interface PgStoreOptions {
  /** This process's name among the replicas; a new one when not given. */
  replica?: string;
  pool?: number;
}

export async function openPgStore(url: string, opts: PgStoreOptions = {}): Promise<SharedStore> {
  const replica = opts.replica ?? newId("rpl");
  // Notices (such as "relation already exists, skipping" from the migrator) are not the relay's news.
  const connection = { application_name: `${APPLICATION_PREFIX}${replica}` };
  const client = postgres(url, { max: opts.pool ?? DEFAULT_POOL, onnotice: () => {}, connect_timeout: CONNECT_TIMEOUT_S, backoff: reconnectAfterS, connection });
  // Looks for a database that went away on a connection of its own: the pool's may be busy failing.
  const looker = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 1, idle_timeout: 5, backoff: reconnectAfterS, connection });
  const reach = new DatabaseReach(() => looker`select 1`);
  try {
    await migrateOnce(url);
  } catch (e) {
    await Promise.all([client.end({ timeout: 1 }), looker.end({ timeout: 1 })]);
    throw e;
  }
  const db = drizzle({ client, schema: pgSchema });
  const q = db as unknown as Query;
  // A transaction on a connection reserved first, not `sql.begin` (drizzle's `db.transaction`):
  // postgres.js 3.4.9's begin can send BEGIN on a connection it has not reserved when BEGIN is the
  // query that fills that connection's pipeline or socket (porsager/postgres#823; the fix, #1218, is
  // not released), and the transaction fails with UNSAFE_TRANSACTION — 10,000 asks opened at once
  // over two replicas hit it in two of three benchmark runs. `reserve()` takes an idle connection
  // and holds it before anything is sent on it; drizzle's `tx` over it is built as drizzle's own
  // `transaction` builds one (its session and dialect are not in drizzle's public types).
  const inner = db as unknown as { dialect: never; session: { schema: never; options: never } };
  const onConnection = (connection: postgres.ReservedSql) =>
    new PostgresJsTransaction(inner.dialect, new PostgresJsSession(connection as never, inner.dialect, inner.session.schema, inner.session.options), inner.session.schema) as unknown as Query;
  const inTransaction = async <T>(fn: (tx: Query) => Promise<T>, committed?: Committed, opening: string[] = []): Promise<T> => {
    const reserved = await client.reserve();
    try {
      // Sent at once, and what the transaction sends next follows on the same connection without
      // waiting for their answers (postgres.js pipelines): no round trip of their own. Their failure
      // is thrown before the commit.
      const begun = Promise.all(["begin", ...opening].map((text) => reserved.unsafe(text).execute()));
      begun.catch(() => {});
      let result: T;
      try {
        result = await fn(onConnection(reserved));
        await begun;
        await reserved`commit`;
      } catch (e) {
        await reserved`rollback`.catch(() => {});
        throw e;
      }
      committed?.();
      return result;
    } finally {
      reserved.release();
    }
  };
  const dialect: Dialect = {
    kind: "postgres",
    db: q,
    t: pgSchema as unknown as typeof schema,
    write: (fn) => fn(q),
    // This transaction's commit returns before its WAL is flushed; every other commit waits for it.
    withoutWaitingForDisk: (fn, committed) => inTransaction(fn, committed, ["set local synchronous_commit = off"]),
    statement: (name, build) => (tx, params) => build(tx).prepare(name).execute(params),
    transaction: (fn, committed) => inTransaction(fn, committed),
    lock: async (tx, key) => {
      await (tx as unknown as typeof db).execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
    },
    announceRevocation: async (tx, tokenId) => {
      await (tx as unknown as typeof db).execute(sql`select pg_notify(${TOKEN_CHANNEL}, ${tokenId})`);
    },
    announce: async (tx, change) => {
      await (tx as unknown as typeof db).execute(sql`select pg_notify(${ASK_CHANNEL}, ${JSON.stringify(change)})`);
    },
    announceFollow: async (tx, change) => {
      await (tx as unknown as typeof db).execute(sql`select pg_notify(${FOLLOW_CHANNEL}, ${JSON.stringify(change)})`);
    },
    epochMs: (column: Column) => sql`(extract(epoch from ${column}::timestamptz) * 1000)`,
    // A killed replica's connections close with it; PostgreSQL drops them from this view at once.
    liveReplicas: async () => {
      const rows = await client<{ replica: string }[]>`
        select distinct substr(application_name, ${APPLICATION_PREFIX.length + 1}) as replica
        from pg_stat_activity
        where datname = current_database() and application_name like ${`${APPLICATION_PREFIX}rpl_%`}`;
      return rows.map((r) => r.replica);
    },
  };
  // Moves with every revocation any process commits, and after every reconnection (one may have been missed).
  let tokensVersion = 0;
  await client.listen(
    TOKEN_CHANNEL,
    () => tokensVersion++,
    () => tokensVersion++,
  );
  const listen: SharedStore["listen"] = async (onChange, onReady, onFollow) => {
    const follows = onFollow
      ? await client.listen(FOLLOW_CHANNEL, (payload) => {
          const change = parseFollow(payload);
          if (change && change.replica !== replica) onFollow(change);
        })
      : undefined;
    const listening = await client.listen(
      ASK_CHANNEL,
      (payload) => {
        const change = parseChange(payload);
        if (change && change.replica !== replica) onChange(change);
      },
      // postgres.js calls this on the first LISTEN and after every reconnection.
      () => onReady?.(),
    );
    return {
      close: async () => {
        await listening.unlisten();
        await follows?.unlisten();
      },
    };
  };
  const shared = storeOver(dialect, replica, {
    tokensVersion: () => tokensVersion,
    close: async () => {
      reach.stop();
      await Promise.all([client.end({ timeout: 5 }), looker.end({ timeout: 1 })]);
    },
  });
  // The writes someone waits on, each in one round trip (ask-records.ts).
  const store: SharedStore = { ...shared, listen, asks: new PgAskRecords(dialect, replica, client, ASK_CHANNEL) };
  return guardedBy(reach, store);
}

/** Applies the numbered migrations under an advisory lock, on a connection of its own (the lock is the session's). */
async function migrateOnce(url: string): Promise<void> {
  const one = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await one`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migrate(drizzle({ client: one }), { migrationsFolder: MIGRATIONS });
  } finally {
    await one.end({ timeout: 5 });
  }
}

function parseFollow(payload: string): FollowChange | undefined {
  try {
    const c = JSON.parse(payload);
    if (typeof c.askId === "string" && typeof c.replica === "string" && typeof c.following === "boolean") return c;
  } catch {}
  return undefined;
}

function parseChange(payload: string): AskChange | undefined {
  try {
    const c = JSON.parse(payload);
    if (
      typeof c.askId === "string" &&
      typeof c.spaceId === "string" &&
      Number.isInteger(c.version) &&
      typeof c.replica === "string" &&
      Number.isInteger(c.turns) &&
      typeof c.status === "string" &&
      typeof c.updatedAt === "string"
    )
      return c;
  } catch {}
  // Someone else's NOTIFY on our channel: not an ask change.
  return undefined;
}
