// MCP tasks (spec 2025-11-25) on disk. A task row records only which ask it follows and from which
// turn; its state is worked out from the ask whenever the agent polls (see asks/waiting.ts).
import { and, asc, eq, gt, isNotNull, sql } from "drizzle-orm";
import type { Db } from "./db.ts";
import { tasks } from "./schema.ts";

export type TaskRow = typeof tasks.$inferSelect;

export class Tasks {
  constructor(private db: Db) {}

  insert(row: TaskRow): void {
    this.db.insert(tasks).values(row).run();
  }

  /** A space's task, unless it is past its time to live. */
  get(spaceId: string, id: string, now = Date.now()): TaskRow | undefined {
    const row = this.db.select().from(tasks).where(and(eq(tasks.id, id), eq(tasks.spaceId, spaceId))).get();
    if (row && row.ttlMs !== null && Date.parse(row.createdAt) + row.ttlMs < now) return undefined;
    return row;
  }

  update(spaceId: string, id: string, set: Partial<TaskRow>): TaskRow | undefined {
    return this.db
      .update(tasks)
      .set(set)
      .where(and(eq(tasks.id, id), eq(tasks.spaceId, spaceId)))
      .returning()
      .get();
  }

  /** A page of a space's tasks in id order, after `cursor`; one more than `limit` tells there is a next. */
  list(spaceId: string, limit: number, cursor?: string): TaskRow[] {
    return this.db
      .select()
      .from(tasks)
      .where(and(eq(tasks.spaceId, spaceId), cursor ? gt(tasks.id, cursor) : undefined))
      .orderBy(asc(tasks.id))
      .limit(limit + 1)
      .all();
  }

  /** Forgets tasks past their time to live. */
  sweep(): void {
    // One statement: SQLite reads the ISO times as Julian days (milliseconds: × 86,400,000).
    this.db
      .delete(tasks)
      .where(and(isNotNull(tasks.ttlMs), sql`julianday(${tasks.createdAt}) * 86400000 + ${tasks.ttlMs} < julianday('now') * 86400000`))
      .run();
  }
}
