// `loopback restore FILE`: puts a backup made by `loopback backup` in place of the relay's SQLite
// database. The relay must be stopped first; the database it replaces is kept beside it.
import { configFromEnv } from "../config.ts";
import { restoreSqlite } from "../storage/sqlite-backup.ts";
import { PG_RESTORE } from "./backup.ts";

export async function restore(args: string[]): Promise<void> {
  const [file, ...rest] = args;
  if (!file || rest.length) throw new Error("restore takes the one FILE `loopback backup` wrote: loopback restore loopback-backup.sqlite");
  const config = configFromEnv();
  if (config.databaseUrl) throw new Error(`This relay keeps everything in PostgreSQL: restore a pg_dump backup with PostgreSQL's own tools, with every relay stopped:\n  ${PG_RESTORE}`);
  if (await answers(`http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${config.port}/healthz`)) {
    throw new Error(`A relay answers on ${config.host}:${config.port}: stop it first (it would go on writing to the database it has open), then restore, then start it.`);
  }
  const { keptAs } = restoreSqlite(config.dataDir, file);
  console.log(`Restored ${file} into ${config.dataDir}.${keptAs ? ` The database it replaced is kept as ${keptAs}.` : ""} Start the relay: it brings the database up to date if the backup is older.`);
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}
