// Refused tokens per address, counted in the store so guessing is slowed on every replica at once:
// one upsert counts a failure in the current window or starts a new one, whichever replica sees it.
// The limiter (limits/failure-limiter.ts) decides what a count means; the window is the store's.
import { and, eq, gte, lt, sql } from "drizzle-orm";
import type { Dialect } from "../dialect.ts";
import type { FailureCountRecords } from "../store.ts";

const iso = (ms: number) => new Date(ms).toISOString();

export const FAILURE_WINDOW_MS = 60_000;

export class SqlFailureCounts implements FailureCountRecords {
  constructor(
    private d: Dialect,
    private windowMs = FAILURE_WINDOW_MS,
  ) {}

  async count(key: string, nowMs: number): Promise<number> {
    const { db, t } = this.d;
    const [row] = await db
      .select({ count: t.authFailures.count })
      .from(t.authFailures)
      .where(and(eq(t.authFailures.address, key), gte(t.authFailures.since, iso(nowMs - this.windowMs))));
    return row?.count ?? 0;
  }

  add(key: string, nowMs: number): Promise<number> {
    const { t } = this.d;
    const now = iso(nowMs);
    const expired = sql`${t.authFailures.since} < ${iso(nowMs - this.windowMs)}`;
    // Lost to a power cut, a count only lets a few more guesses through: not waited onto the disk.
    return this.d.withoutWaitingForDisk(async (q) => {
      const [row] = await q
        .insert(t.authFailures)
        .values({ address: key, count: 1, since: now })
        .onConflictDoUpdate({
          target: t.authFailures.address,
          set: {
            count: sql`case when ${expired} then 1 else ${t.authFailures.count} + 1 end`,
            since: sql`case when ${expired} then ${now} else ${t.authFailures.since} end`,
          },
        })
        .returning({ count: t.authFailures.count });
      return row.count;
    });
  }

  async sweep(nowMs: number): Promise<void> {
    const { t } = this.d;
    await this.d.write((q) => q.delete(t.authFailures).where(lt(t.authFailures.since, iso(nowMs - this.windowMs))));
  }
}
