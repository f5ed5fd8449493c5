// Blocking tool calls on disk, so a stream cut by a crash, a restart or a dropped connection can be
// resumed (`Last-Event-ID`) by any relay process, which then follows the same ask from the same turn
// and answers the same JSON-RPC request. Written without waiting for the disk, like a new ask: the
// agent has not been answered yet, and the reply's durable commit carries the record to disk with it.
import { eq, lt, sql } from "drizzle-orm";
import { changed, withoutWaitingForDisk, type Db } from "./db.ts";
import { waitingCalls } from "./schema.ts";

export type CallRow = typeof waitingCalls.$inferSelect;

export class WaitingCalls {
  #insert;
  #byId;

  constructor(private db: Db) {
    const p = sql.placeholder;
    this.#insert = db
      .insert(waitingCalls)
      .values({
        id: p("id"),
        sessionId: p("sessionId"),
        requestId: p("requestId"),
        tool: p("tool"),
        askId: p("askId"),
        fromTurn: p("fromTurn"),
        progressToken: p("progressToken"),
        createdAt: p("createdAt"),
      })
      .prepare();
    this.#byId = db.select().from(waitingCalls).where(eq(waitingCalls.id, p("id"))).prepare();
  }

  /** Records a call once its tool has opened or found its ask: which ask, from which turn. */
  insert(row: CallRow): void {
    withoutWaitingForDisk(this.db, () => this.#insert.run(row));
  }

  get(id: string): CallRow | undefined {
    return this.#byId.get({ id });
  }

  /** Forgets calls begun before `before`: past the reclaim window, asking again recovers the reply. */
  deleteBefore(before: string): number {
    return changed(this.db.delete(waitingCalls).where(lt(waitingCalls.createdAt, before)).run());
  }

  deleteForSessions(sessionIds: string[]): void {
    for (const id of sessionIds) this.db.delete(waitingCalls).where(eq(waitingCalls.sessionId, id)).run();
  }
}
