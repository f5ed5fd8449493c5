// `loopback backup FILE`: a consistent copy of the relay's SQLite database, taken while it runs.
// PostgreSQL has its own tools for this, and the command says which.
import type { Config } from "../config.ts";
import { backupSqlite } from "../storage/sqlite-backup.ts";

export const PG_DUMP = 'pg_dump --format=custom --file=loopback.dump "$LOOPBACK_DATABASE_URL"';
export const PG_RESTORE = 'pg_restore --clean --if-exists --no-owner --dbname="$LOOPBACK_DATABASE_URL" loopback.dump';

export function backup(file: string, config: Config): void {
  if (config.databaseUrl) throw new Error(`This relay keeps everything in PostgreSQL: back it up with PostgreSQL's own tools, while it runs:\n  ${PG_DUMP}`);
  const { bytes } = backupSqlite(config.dataDir, file);
  console.log(`Backed up ${config.dataDir} to ${file} (${(bytes / 1024 / 1024).toFixed(1)} MiB). Restore it with: loopback restore ${file}`);
}
