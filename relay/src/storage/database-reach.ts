// Whether the database can be reached, and what every caller of the store sees while it cannot. The
// first error that says the database is gone (refused, closed, timed out, shutting down) marks it
// away: from then on every store call is refused at once with `503 database.unreachable` instead of
// queueing behind connection attempts, and one `select 1` at a time looks for it. The moment a look
// succeeds the store serves again and whoever registered with `onBack` reads what it missed.
import { guardRecords } from "./guarded-records.ts";
import { LoopbackProblem, problem } from "@loopback/shared/problems";
import type { Store } from "./store.ts";

/** How often a database that is away is looked for: a relay serves again this soon after it is back. */
export const LOOK_EVERY_MS = 100;
/** A look that takes longer than this counts as the database still away. */
const LOOK_TIMEOUT_MS = 1_000;

/** postgres.js's own connection errors and the system's, by `code`. */
const CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "ConnectionRefused",
  "ConnectionClosed",
]);

/** PostgreSQL's SQLSTATEs for a server going away, not yet taking connections, or out of them. */
const SERVER_CODES = new Set(["57P01", "57P02", "57P03", "53300", "57014"]);

/** Whether an error (or one it was caused by) says the database cannot be reached now, rather than refusing a query. */
export function isDatabaseUnreachable(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof LoopbackProblem) return e.code === "database.unreachable";
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (CONNECTION_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith("08"))) return true;
  }
  return false;
}

/** Whether a store call was refused because the database is away: it passes, and is tried again. */
export function isDatabaseAway(error: unknown): boolean {
  return error instanceof LoopbackProblem && error.code === "database.unreachable";
}

export class DatabaseReach {
  #awaySince?: number;
  #looking = false;
  #stopped = false;
  #onBack = new Set<() => void>();

  constructor(private look: () => Promise<unknown>) {}

  get reachable(): boolean {
    return this.#awaySince === undefined;
  }

  /** Called each time the database is back after being away. */
  onBack(listener: () => void): () => void {
    this.#onBack.add(listener);
    return () => this.#onBack.delete(listener);
  }

  /**
   * `records` with every method refused at once while the database is away, and an error saying it
   * went away turned into `database.unreachable` (marking it away).
   */
  guard<T extends object>(records: T): T {
    return guardRecords(records, {
      refuse: () => (this.reachable ? undefined : problem("database.unreachable")),
      seen: (e) => this.#seen(e),
    });
  }

  /** An error from the database: when it says the database is gone, marks it away and says so. */
  #seen(error: unknown): unknown {
    if (error instanceof LoopbackProblem || !isDatabaseUnreachable(error)) return error;
    this.#away(error);
    return problem("database.unreachable");
  }

  #away(cause: unknown): void {
    if (this.#stopped) return;
    if (this.#awaySince === undefined) {
      this.#awaySince = performance.now();
      const why = cause instanceof Error ? `${(cause as { code?: string }).code ?? cause.name}: ${cause.message}` : String(cause);
      console.warn(`database unreachable (${why}): answering 503 database.unreachable and looking for it every ${LOOK_EVERY_MS} ms`);
    }
    void this.#lookUntilBack();
  }

  async #lookUntilBack(): Promise<void> {
    if (this.#looking) return;
    this.#looking = true;
    try {
      while (!this.#stopped && this.#awaySince !== undefined) {
        if (await this.#lookOnce()) {
          const awayMs = performance.now() - this.#awaySince;
          this.#awaySince = undefined;
          console.warn(`database reachable again after ${(awayMs / 1000).toFixed(1)} s`);
          for (const listener of this.#onBack) {
            try {
              listener();
            } catch (e) {
              console.warn("after the database came back:", e);
            }
          }
          return;
        }
        await Bun.sleep(LOOK_EVERY_MS);
      }
    } finally {
      this.#looking = false;
    }
  }

  async #lookOnce(): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([this.look(), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("look timed out")), LOOK_TIMEOUT_MS)))]);
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  stop(): void {
    this.#stopped = true;
  }
}

/** The store with every kind of record guarded by `reach`, and `reach` for whoever wants to know. */
export function guardedBy<S extends Store>(reach: DatabaseReach, store: S): S {
  return {
    ...store,
    asks: reach.guard(store.asks),
    tokens: reach.guard(store.tokens),
    uploads: reach.guard(store.uploads),
    sessions: reach.guard(store.sessions),
    calls: reach.guard(store.calls),
    tasks: reach.guard(store.tasks),
    tickets: reach.guard(store.tickets),
    failures: reach.guard(store.failures),
    push: reach.guard(store.push),
    follows: reach.guard(store.follows),
    reach,
  };
}
