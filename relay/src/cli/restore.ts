// `loopback restore FILE`: puts a backup made by `loopback backup` in place of the relay's SQLite
// database. The relay must be stopped first; the database it replaces is kept beside it.
import type { Config } from "../config.ts";
import { restoreSqlite } from "../storage/sqlite-backup.ts";
import { PG_RESTORE } from "./backup.ts";

export function restore(file: string, config: Config): void {
  if (config.databaseUrl) throw new Error(`This relay keeps everything in PostgreSQL: restore a pg_dump backup with PostgreSQL's own tools, with every relay stopped:\n  ${PG_RESTORE}`);
  const { keptAs } = restoreSqlite(config.dataDir, file);
  console.log(`Restored ${file} into ${config.dataDir}.${keptAs ? ` The database it replaced is kept as ${keptAs}.` : ""} Start the relay: it brings the database up to date if the backup is older.`);
}

