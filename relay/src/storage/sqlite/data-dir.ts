// The data directory holds every ask, diff and image: only the user running the relay may read it.
// The directory is created 0700 and the database 0600; SQLite gives its -wal and -shm files the
// database file's mode, so creating that file first is what keeps them private too.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { join } from "node:path";

export const DB_FILE = "loopback.sqlite";
const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

/** Makes the data directory ready and private; returns a warning when an existing one is readable by others. */
export function prepareDataDir(dataDir: string): string | undefined {
  let warning: string | undefined;
  if (existsSync(dataDir)) {
    const mode = statSync(dataDir).mode & 0o777;
    // The operator's own directory is left as it is: they may share it on purpose.
    if (mode & 0o077) {
      warning = `Warning: the data directory ${dataDir} is mode ${mode.toString(8).padStart(4, "0")}: other users of this machine can see into it. \`chmod 700 ${dataDir}\` keeps it to you.`;
    }
  } else {
    mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR });
  }
  for (const name of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`]) {
    const path = join(dataDir, name);
    if (existsSync(path)) chmodSync(path, PRIVATE_FILE);
    else if (name === DB_FILE) closeSync(openSync(path, "a", PRIVATE_FILE));
  }
  return warning;
}
