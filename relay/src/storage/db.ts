// Opens the relay's SQLite file and brings its tables up to date. WAL keeps readers off the writer's
// back; synchronous=FULL makes every commit durable before it returns, because a reply is
// acknowledged only once it is on disk.
import { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { migrate } from "drizzle-orm/bun-sqlite/migrator";
import { join } from "node:path";
import { DB_FILE, prepareDataDir } from "./data-dir.ts";
import * as schema from "./schema.ts";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

const MIGRATIONS = join(import.meta.dir, "migrations");

export function openDb(dataDir: string): Db {
  const warning = prepareDataDir(dataDir);
  if (warning) console.warn(warning);
  const sqlite = new Database(join(dataDir, DB_FILE), { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = FULL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  // The CLI writes tokens while the server runs: wait for the other writer instead of failing.
  sqlite.exec("PRAGMA busy_timeout = 5000");
  const db = drizzle({ client: sqlite, schema }) as Db;
  migrate(db, { migrationsFolder: MIGRATIONS });
  return db;
}

/** Rows a write changed. bun:sqlite reports it; drizzle's types do not pass it through. */
export const changed = (result: unknown): number => (result as { changes: number }).changes;

/**
 * Runs `write` with a commit that reaches the OS without waiting for the disk: safe from a crashed
 * process, not from a power cut. Only for records whose loss repeats work instead of losing any.
 */
export function withoutWaitingForDisk<T>(db: Db, write: () => T): T {
  const client = db.$client;
  // `query` caches the prepared pragma, so switching costs no parse on this hot path.
  client.query("PRAGMA synchronous = NORMAL").run();
  try {
    return write();
  } finally {
    client.query("PRAGMA synchronous = FULL").run();
  }
}
