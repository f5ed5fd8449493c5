// One-time passes onto the event socket, so a browser that fetched its ticket from one replica opens
// its socket on another. Redeeming deletes the row: only one redeemer, on any replica, gets it.
import { eq, lt } from "drizzle-orm";
import type { Dialect } from "../dialect.ts";
import type { TicketRecords } from "../store.ts";

export class SqlTicketRecords implements TicketRecords {
  constructor(private d: Dialect) {}

  async issue(hash: string, tokenHash: string, expiresAt: string): Promise<void> {
    await this.d.write((q) => q.insert(this.d.t.eventTickets).values({ hash, tokenHash, expiresAt }));
  }

  redeem(hash: string, now: string): Promise<string | undefined> {
    const { t } = this.d;
    return this.d.write(async (q) => {
      const [row] = await q.delete(t.eventTickets).where(eq(t.eventTickets.hash, hash)).returning();
      return row && row.expiresAt > now ? row.tokenHash : undefined;
    });
  }

  async sweep(now: string): Promise<void> {
    const { t } = this.d;
    await this.d.write((q) => q.delete(t.eventTickets).where(lt(t.eventTickets.expiresAt, now)));
  }
}
