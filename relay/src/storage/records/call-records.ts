// Blocking tool calls, so a stream cut by a crash, a restart or a lost replica is resumed
// (`Last-Event-ID`) by whichever replica the reconnection reaches. Written without waiting for the
// disk: the agent has not been answered yet, and the reply's durable commit carries them with it.
import { and, eq, inArray, lt } from "drizzle-orm";
import type { Dialect } from "../dialect.ts";
import type { CallRecords, CallRow } from "../store.ts";

export class SqlCallRecords implements CallRecords {
  constructor(private d: Dialect) {}

  async insert(row: CallRow): Promise<void> {
    await this.d.withoutWaitingForDisk((q) => q.insert(this.d.t.waitingCalls).values(row));
  }

  async get(id: string): Promise<CallRow | undefined> {
    const { db, t } = this.d;
    return (await db.select().from(t.waitingCalls).where(eq(t.waitingCalls.id, id)))[0];
  }

  deleteBefore(before: string): Promise<number> {
    const { t } = this.d;
    return this.d.write(async (q) => (await q.delete(t.waitingCalls).where(lt(t.waitingCalls.createdAt, before)).returning({ id: t.waitingCalls.id })).length);
  }

  async deleteForSessions(sessionIds: string[]): Promise<void> {
    if (!sessionIds.length) return;
    const { t } = this.d;
    await this.d.write((q) => q.delete(t.waitingCalls).where(inArray(t.waitingCalls.sessionId, sessionIds)));
  }

  async deleteForRequest(sessionId: string, requestId: string): Promise<void> {
    const { t } = this.d;
    await this.d.write((q) => q.delete(t.waitingCalls).where(and(eq(t.waitingCalls.sessionId, sessionId), eq(t.waitingCalls.requestId, requestId))));
  }
}
