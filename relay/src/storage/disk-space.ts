// Whether the SQLite file's filesystem has room to write. SQLite refuses a write on a full disk
// (`SQLITE_FULL`, "database or disk is full") and keeps what was committed; the relay answers that
// write `503 storage.full`, says so in its log once with what to do, and reports it on `/readyz` until
// the filesystem has room again. Reads go on meanwhile.
import { guardRecords } from "./guarded-records.ts";
import { statfsSync } from "node:fs";
import { LoopbackProblem, problem } from "@loopback/shared/problems";
import { log } from "../logging/log.ts";

/** Free space under the data directory that counts as room again after it was full. */
export const ROOM_BYTES = 1024 * 1024;

/** Whether an error (or one it was caused by) is SQLite's full disk. */
export function isDiskFull(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof LoopbackProblem) return e.code === "storage.full";
    if ((e as { code?: unknown }).code === "SQLITE_FULL") return true;
  }
  return false;
}

export class DiskSpace {
  #full = false;

  constructor(readonly dataDir: string) {}

  /** Whether the last write was refused for a full disk and the filesystem has not had room since. */
  get full(): boolean {
    if (this.#full && this.#freeBytes() >= ROOM_BYTES) {
      this.#full = false;
      log("storage").warn("the filesystem under LOOPBACK_DATA ({dataDir}) has room again: the relay writes again", { dataDir: this.dataDir });
    }
    return this.#full;
  }

  /** `records` with SQLite's full disk turned into `storage.full` (and noted). */
  guard<T extends object>(records: T): T {
    return guardRecords(records, { seen: (e) => this.#seen(e) });
  }

  #seen(error: unknown): unknown {
    if (error instanceof LoopbackProblem || !isDiskFull(error)) return error;
    if (!this.#full) {
      this.#full = true;
      log("storage").error(
        "database or disk is full: the filesystem under LOOPBACK_DATA ({dataDir}) has no room left, so every write is refused (503 storage.full) and nothing is acknowledged; reads go on. Free space there (or move LOOPBACK_DATA to a larger disk): the relay writes again by itself once {room} bytes are free",
        { dataDir: this.dataDir, room: ROOM_BYTES },
      );
    }
    return problem("storage.full");
  }

  #freeBytes(): number {
    try {
      const s = statfsSync(this.dataDir);
      return s.bavail * s.bsize;
    } catch {
      return 0;
    }
  }
}
