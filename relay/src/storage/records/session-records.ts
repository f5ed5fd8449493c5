// MCP sessions, so whichever replica a request lands on serves a known `Mcp-Session-Id` without a new
// `initialize`. Losing one to a power cut means one re-initialize: written without waiting for the disk.
import { and, asc, count, eq, lt, notExists } from "drizzle-orm";
import type { Dialect, Query } from "../dialect.ts";
import type { SessionRecords, SessionRow } from "../store.ts";

export class SqlSessionRecords implements SessionRecords {
  constructor(private d: Dialect) {}

  insert(row: SessionRow, max?: number): Promise<boolean> {
    return this.d.withoutWaitingForDisk(async (q) => {
      if (max !== undefined) {
        // Counted and stored under the token's lock: concurrent initializes on any replica cannot pass the cap.
        await this.d.lock(q, `mcp_sessions:${row.tokenHash}`);
        if ((await this.#countFor(q, row.tokenHash)) >= max) return false;
      }
      await q.insert(this.d.t.mcpSessions).values(row);
      return true;
    });
  }

  async get(id: string): Promise<SessionRow | undefined> {
    const { db, t } = this.d;
    return (await db.select().from(t.mcpSessions).where(eq(t.mcpSessions.id, id)))[0];
  }

  async touch(id: string, at: string): Promise<void> {
    const { t } = this.d;
    await this.d.withoutWaitingForDisk((q) => q.update(t.mcpSessions).set({ lastSeenAt: at }).where(eq(t.mcpSessions.id, id)));
  }

  async delete(id: string): Promise<void> {
    const { t } = this.d;
    await this.d.write((q) => q.delete(t.mcpSessions).where(eq(t.mcpSessions.id, id)));
  }

  countForToken(tokenHash: string): Promise<number> {
    return this.#countFor(this.d.db, tokenHash);
  }

  async #countFor(q: Query, tokenHash: string): Promise<number> {
    const { t } = this.d;
    const [row] = await q.select({ n: count() }).from(t.mcpSessions).where(eq(t.mcpSessions.tokenHash, tokenHash));
    return Number(row?.n ?? 0);
  }

  deleteIdle(before: string): Promise<string[]> {
    const { t } = this.d;
    return this.d.write(async (q) => (await q.delete(t.mcpSessions).where(lt(t.mcpSessions.lastSeenAt, before)).returning({ id: t.mcpSessions.id })).map((r) => r.id));
  }

  deleteForToken(tokenHash: string): Promise<string[]> {
    const { t } = this.d;
    return this.d.write(async (q) => (await q.delete(t.mcpSessions).where(eq(t.mcpSessions.tokenHash, tokenHash)).returning({ id: t.mcpSessions.id })).map((r) => r.id));
  }

  async leastRecentlyUsed(tokenHash: string, limit: number): Promise<string[]> {
    const { db, t } = this.d;
    const called = db.select({ id: t.waitingCalls.id }).from(t.waitingCalls).where(eq(t.waitingCalls.sessionId, t.mcpSessions.id));
    const rows = await db
      .select({ id: t.mcpSessions.id })
      .from(t.mcpSessions)
      .where(and(eq(t.mcpSessions.tokenHash, tokenHash), notExists(called)))
      .orderBy(asc(t.mcpSessions.lastSeenAt))
      .limit(limit);
    return rows.map((r) => r.id);
  }
}
