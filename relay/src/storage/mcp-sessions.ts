// MCP sessions on disk, so a restarted relay (or another replica) serves a known `Mcp-Session-Id`
// without a new `initialize`. Rows are small; what `initialize` said is kept to rebuild the session.
import { and, count, eq, lt, sql } from "drizzle-orm";
import { withoutWaitingForDisk, type Db } from "./db.ts";
import { mcpSessions } from "./schema.ts";

export type SessionRow = typeof mcpSessions.$inferSelect;

export class McpSessions {
  #byId;
  #touch;

  constructor(private db: Db) {
    const p = sql.placeholder;
    this.#byId = db.select().from(mcpSessions).where(eq(mcpSessions.id, p("id"))).prepare();
    this.#touch = db.update(mcpSessions).set({ lastSeenAt: sql`${p("at")}` }).where(eq(mcpSessions.id, p("id"))).prepare();
  }

  /** Stored without waiting for the disk: a session lost to a power cut is re-initialized, nothing more. */
  insert(row: SessionRow): void {
    withoutWaitingForDisk(this.db, () => this.db.insert(mcpSessions).values(row).run());
  }

  get(id: string): SessionRow | undefined {
    return this.#byId.get({ id });
  }

  touch(id: string, at: string): void {
    withoutWaitingForDisk(this.db, () => this.#touch.run({ id, at }));
  }

  delete(id: string): void {
    this.db.delete(mcpSessions).where(eq(mcpSessions.id, id)).run();
  }

  countForToken(tokenHash: string): number {
    return this.db.select({ n: count() }).from(mcpSessions).where(eq(mcpSessions.tokenHash, tokenHash)).get()?.n ?? 0;
  }

  /** Forgets sessions nobody used since `before`; returns their ids. */
  deleteIdle(before: string): string[] {
    return this.db.delete(mcpSessions).where(lt(mcpSessions.lastSeenAt, before)).returning({ id: mcpSessions.id }).all().map((r) => r.id);
  }

  /** Ends every session of a token (it was revoked). */
  deleteForToken(tokenHash: string): string[] {
    return this.db.delete(mcpSessions).where(and(eq(mcpSessions.tokenHash, tokenHash))).returning({ id: mcpSessions.id }).all().map((r) => r.id);
  }
}
