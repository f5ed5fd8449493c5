// A consistent copy of the relay's SQLite file while it runs, and putting one back while it does
// not. `VACUUM INTO` reads one snapshot of the database, however many writers commit meanwhile
// (a plain copy of a live WAL database can miss committed transactions or tear); the copy is made
// private, as the data directory is, since it holds every ask, image and token hash.
import { Database } from "bun:sqlite";
import { chmodSync, closeSync, existsSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { DB_FILE, prepareDataDir } from "./data-dir.ts";

const PRIVATE_FILE = 0o600;

/** Writes a consistent copy of the data directory's database to `file`, which must not exist yet. */
export function backupSqlite(dataDir: string, file: string): { bytes: number } {
  const source = join(dataDir, DB_FILE);
  if (!existsSync(source)) throw new Error(`There is no database at ${source} to back up (is LOOPBACK_DATA right?).`);
  const target = resolve(file);
  // Created empty and private first: VACUUM INTO writes into an empty file, keeping its mode.
  closeSync(openSync(target, "wx", PRIVATE_FILE));
  const db = new Database(source, { readonly: true });
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.query("VACUUM INTO ?").run(target);
  } catch (e) {
    rmSync(target, { force: true });
    throw e;
  } finally {
    db.close();
  }
  chmodSync(target, PRIVATE_FILE);
  return { bytes: statSync(target).size };
}

/**
 * Puts a backup in place of the data directory's database, keeping the one it replaces beside it
 * (`loopback.sqlite.before-restore-TIME`). The relay must be stopped: one still running would go on
 * writing to the file it had open. Returns where the replaced database was kept.
 */
export function restoreSqlite(dataDir: string, file: string, now = new Date()): { keptAs?: string } {
  const backup = resolve(file);
  if (!existsSync(backup)) throw new Error(`There is no file ${backup}.`);
  assertLoopbackDatabase(backup);
  const warning = prepareDataDir(dataDir);
  if (warning) console.warn(warning);
  const target = join(dataDir, DB_FILE);
  assertNotOpenElsewhere(target);
  let keptAs: string | undefined;
  if (existsSync(target) && statSync(target).size > 0) {
    keptAs = `${target}.before-restore-${now.toISOString().replace(/[:.]/g, "-")}`;
    // Checkpointed into the one file first, so what is kept is whole on its own.
    const current = new Database(target);
    current.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    current.close();
    renameSync(target, keptAs);
  }
  for (const name of [`${DB_FILE}-wal`, `${DB_FILE}-shm`]) rmSync(join(dataDir, name), { force: true });
  const staged = `${target}.restoring`;
  const copy = new Database(backup, { readonly: true });
  try {
    rmSync(staged, { force: true });
    closeSync(openSync(staged, "wx", PRIVATE_FILE));
    copy.query("VACUUM INTO ?").run(staged);
  } finally {
    copy.close();
  }
  renameSync(staged, target);
  chmodSync(target, PRIVATE_FILE);
  return { keptAs };
}

/**
 * Refuses while another process has the database open. A connection in WAL mode holds a lock that an
 * exclusive one cannot get past; a relay killed outright holds nothing, so it does not count.
 */
function assertNotOpenElsewhere(path: string): void {
  if (!existsSync(path)) return;
  const db = new Database(path);
  try {
    db.exec("PRAGMA busy_timeout = 0");
    db.exec("PRAGMA locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
    db.exec("COMMIT");
  } catch {
    throw new Error(`${path} is open in another process, a running relay most likely: stop it first (it would go on writing to the database it has open), then restore, then start it.`);
  } finally {
    db.close();
  }
}

/** Refuses a file that is not a sound Loopback database. */
function assertLoopbackDatabase(path: string): void {
  let db: Database;
  try {
    db = new Database(path, { readonly: true });
  } catch {
    throw new Error(`${path} is not an SQLite database.`);
  }
  try {
    const ok = db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get()?.integrity_check;
    const tables = new Set(db.query<{ name: string }, []>("select name from sqlite_master where type = 'table'").all().map((r) => r.name));
    if (ok !== "ok") throw new Error(`${path} is damaged: ${ok}`);
    if (!tables.has("asks") || !tables.has("tokens")) throw new Error(`${path} is not a Loopback database (it has no asks or tokens).`);
  } catch (e) {
    if (e instanceof Error && e.message.startsWith(path)) throw e;
    throw new Error(`${path} is not an SQLite database.`, { cause: e });
  } finally {
    db.close();
  }
}
