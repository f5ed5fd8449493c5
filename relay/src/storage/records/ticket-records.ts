// One-time passes onto the event socket, so a browser that fetched its ticket from one replica opens
// its socket on another. Redeeming deletes the row, so one redeemer on any replica gets it, and reads
// the caller through the token, so a revoked token's tickets are refused wherever they are redeemed.
import { and, count, eq, gt, isNull, lt } from "drizzle-orm";
import type { Caller } from "../../auth/caller.ts";
import type { Dialect } from "../dialect.ts";
import type { TicketRecords } from "../store.ts";

export class SqlTicketRecords implements TicketRecords {
  constructor(private d: Dialect) {}

  async issue(hash: string, tokenId: string, revision: string, expiresAt: string): Promise<void> {
    // A lost ticket is asked for again: its commit need not wait for the disk.
    await this.d.withoutWaitingForDisk((q) => q.insert(this.d.t.eventTickets).values({ hash, tokenId, revision, expiresAt }));
  }

  async heldBy(tokenId: string, now: string): Promise<number> {
    const { db, t } = this.d;
    const [row] = await db
      .select({ held: count() })
      .from(t.eventTickets)
      .where(and(eq(t.eventTickets.tokenId, tokenId), gt(t.eventTickets.expiresAt, now)));
    return Number(row?.held ?? 0);
  }

  redeem(hash: string, now: string): Promise<{ caller: Caller; revision: string } | undefined> {
    const { t } = this.d;
    return this.d.transaction(async (tx) => {
      const [spent] = await tx.delete(t.eventTickets).where(eq(t.eventTickets.hash, hash)).returning();
      if (!spent || spent.expiresAt <= now) return undefined;
      const [row] = await tx
        .select({ hash: t.tokens.hash, kind: t.tokens.kind, personId: t.people.id, personName: t.people.name, spaceId: t.spaces.id, spaceName: t.spaces.name })
        .from(t.tokens)
        .innerJoin(t.people, eq(t.tokens.personId, t.people.id))
        .innerJoin(t.spaces, eq(t.people.spaceId, t.spaces.id))
        .where(and(eq(t.tokens.id, spent.tokenId), isNull(t.tokens.revokedAt)));
      if (!row) return undefined;
      const caller: Caller = { spaceId: row.spaceId, spaceName: row.spaceName, person: { id: row.personId, name: row.personName }, tokenKind: row.kind, tokenHash: row.hash, tokenId: spent.tokenId };
      return { caller, revision: spent.revision };
    });
  }

  async sweep(now: string): Promise<void> {
    const { t } = this.d;
    await this.d.write((q) => q.delete(t.eventTickets).where(lt(t.eventTickets.expiresAt, now)));
  }
}
