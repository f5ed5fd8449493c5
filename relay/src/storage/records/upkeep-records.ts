// What looking after a relay reads and removes: how many asks stand open (for the metrics), and
// retention: closed asks past their time go with their thread, their push notices and the images no
// remaining ask shows; old push notices go too. Open asks are never touched, however old.
import { and, count, eq, inArray, isNotNull, like, lt, ne, or } from "drizzle-orm";
import type { Dialect } from "../dialect.ts";
import type { Pruned, UpkeepRecords } from "../store.ts";

/** Asks deleted per transaction: a long retention run never holds the write lock for long. */
const BATCH = 200;

export class SqlUpkeepRecords implements UpkeepRecords {
  constructor(private d: Dialect) {}

  async openAsks(): Promise<{ status: "awaiting_human" | "awaiting_agent"; count: number }[]> {
    const { db, t } = this.d;
    const rows = await db
      .select({ status: t.asks.status, count: count() })
      .from(t.asks)
      .where(ne(t.asks.status, "closed"))
      .groupBy(t.asks.status);
    return rows.map((r) => ({ status: r.status as "awaiting_human" | "awaiting_agent", count: Number(r.count) }));
  }

  async prune(closedBefore: string, noticesBefore: string): Promise<Pruned> {
    const { db, t } = this.d;
    const pruned: Pruned = { asks: [], images: 0, notices: 0 };
    for (;;) {
      const batch = await db
        .select({ id: t.asks.id })
        .from(t.asks)
        .where(and(eq(t.asks.status, "closed"), lt(t.asks.closedAt, closedBefore)))
        .limit(BATCH);
      if (!batch.length) break;
      const ids = batch.map((r) => r.id);
      await this.d.transaction(async (tx) => {
        await tx.delete(t.entries).where(inArray(t.entries.askId, ids));
        await tx.delete(t.pushNotices).where(inArray(t.pushNotices.askId, ids));
        await tx.delete(t.askFollowers).where(inArray(t.askFollowers.askId, ids));
        // Still closed: nothing reopens an ask, but the check costs nothing and keeps the promise.
        await tx.delete(t.asks).where(and(inArray(t.asks.id, ids), eq(t.asks.status, "closed")));
      });
      pruned.asks.push(...ids);
    }
    // Images stored before the cutoff that no remaining ask shows, in its opening or any turn (an
    // upload's id is unique and random: finding it in the JSON is finding a reference).
    const old = await db
      .select({ id: t.uploads.id })
      .from(t.uploads)
      .where(and(isNotNull(t.uploads.storedAt), lt(t.uploads.storedAt, closedBefore)));
    for (const { id } of old) {
      const pattern = `%"${id}"%`;
      const [shown] = await db
        .select({ id: t.asks.id })
        .from(t.asks)
        .where(or(like(t.asks.opening, pattern), inArray(t.asks.id, db.select({ id: t.entries.askId }).from(t.entries).where(like(t.entries.body, pattern)))))
        .limit(1);
      if (shown) continue;
      pruned.images += (await this.d.write((q) => q.delete(t.uploads).where(eq(t.uploads.id, id)).returning({ id: t.uploads.id }))).length;
    }
    pruned.notices = (await this.d.write((q) => q.delete(t.pushNotices).where(lt(t.pushNotices.at, noticesBefore)).returning({ askId: t.pushNotices.askId }))).length;
    return pruned;
  }
}
