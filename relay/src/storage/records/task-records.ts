// MCP tasks (spec 2025-11-25). A task row records only which ask it follows; its state is worked out
// from the ask whenever the agent polls, on whichever replica the poll lands.
import { and, asc, count, eq, gt, isNotNull, isNull, ne, or, sql } from "drizzle-orm";
import type { Dialect } from "../dialect.ts";
import type { TaskRecords, TaskRow } from "../store.ts";

export class SqlTaskRecords implements TaskRecords {
  constructor(private d: Dialect) {}

  async insert(row: TaskRow): Promise<void> {
    await this.d.write((q) => q.insert(this.d.t.tasks).values(row));
  }

  async get(spaceId: string, id: string, nowMs: number): Promise<TaskRow | undefined> {
    const { db, t } = this.d;
    const [row] = await db.select().from(t.tasks).where(and(eq(t.tasks.id, id), eq(t.tasks.spaceId, spaceId)));
    if (row && row.ttlMs !== null && Date.parse(row.createdAt) + row.ttlMs < nowMs) return undefined;
    return row;
  }

  update(spaceId: string, id: string, set: Partial<TaskRow>): Promise<TaskRow | undefined> {
    const { t } = this.d;
    return this.d.write(async (q) => (await q.update(t.tasks).set(set).where(and(eq(t.tasks.id, id), eq(t.tasks.spaceId, spaceId))).returning())[0]);
  }

  async workingFor(tokenId: string, nowMs: number): Promise<number> {
    const { db, t } = this.d;
    const [row] = await db
      .select({ n: count() })
      .from(t.tasks)
      .innerJoin(t.asks, eq(t.tasks.askId, t.asks.id))
      .where(
        and(
          eq(t.tasks.tokenId, tokenId),
          eq(t.tasks.status, "working"),
          ne(t.asks.status, "closed"),
          or(isNull(t.tasks.ttlMs), sql`${this.d.epochMs(t.tasks.createdAt)} + ${t.tasks.ttlMs} >= ${nowMs}`),
        ),
      );
    return Number(row?.n ?? 0);
  }

  list(spaceId: string, limit: number, cursor?: string, tokenId?: string): Promise<TaskRow[]> {
    const { db, t } = this.d;
    return db
      .select()
      .from(t.tasks)
      .where(and(eq(t.tasks.spaceId, spaceId), tokenId ? or(isNull(t.tasks.tokenId), eq(t.tasks.tokenId, tokenId)) : undefined, cursor ? gt(t.tasks.id, cursor) : undefined))
      .orderBy(asc(t.tasks.id))
      .limit(limit + 1);
  }

  sweep(nowMs: number): Promise<number> {
    const { t } = this.d;
    return this.d.write(async (q) => {
      const gone = await q
        .delete(t.tasks)
        .where(and(isNotNull(t.tasks.ttlMs), sql`${this.d.epochMs(t.tasks.createdAt)} + ${t.tasks.ttlMs} < ${nowMs}`))
        .returning({ id: t.tasks.id });
      return gone.length;
    });
  }
}
