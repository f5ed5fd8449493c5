// Opens the relay's SQLite file and brings its tables up to date. WAL keeps readers off the writer's
// back; synchronous=FULL makes every commit durable before it returns, because a reply is
// acknowledged only once it is on disk.
import { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { migrate } from "drizzle-orm/bun-sqlite/migrator";
import { join } from "node:path";
import { DB_FILE, prepareDataDir } from "./data-dir.ts";
import * as schema from "./schema.ts";
import { log } from "../logging/log.ts";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

const MIGRATIONS = join(import.meta.dir, "migrations");

export function openDb(dataDir: string): Db {
  const warning = prepareDataDir(dataDir);
  if (warning) log("storage").warn(warning);
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
