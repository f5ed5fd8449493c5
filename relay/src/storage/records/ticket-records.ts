// One-time passes onto the event socket, so a browser that fetched its ticket from one replica opens
// its socket on another. Redeeming deletes the row, so one redeemer on any replica gets it, and reads
// the caller through the token, so a revoked token's tickets are refused wherever they are redeemed.
import { and, count, eq, gt, isNull, lt } from "drizzle-orm";
import type { Caller } from "../../auth/caller.ts";
import type { Dialect, Query } from "../dialect.ts";
import type { HeldCap, TicketRecords } from "../store.ts";

export class SqlTicketRecords implements TicketRecords {
  constructor(private d: Dialect) {}

  issue(hash: string, tokenId: string, revision: string, expiresAt: string, cap?: HeldCap): Promise<boolean> {
    // A lost ticket is asked for again: its commit need not wait for the disk.
    return this.d.withoutWaitingForDisk(async (q) => {
      if (cap) {
        // Counted and issued under the token's lock: concurrent requests on any replica cannot pass the cap.
        await this.d.lock(q, `event_tickets:${tokenId}`);
        if ((await this.#held(q, tokenId, cap.now)) >= cap.max) return false;
      }
      await q.insert(this.d.t.eventTickets).values({ hash, tokenId, revision, expiresAt });
      return true;
    });
  }

  heldBy(tokenId: string, now: string): Promise<number> {
    return this.#held(this.d.db, tokenId, now);
  }

  async #held(q: Query, tokenId: string, now: string): Promise<number> {
    const { t } = this.d;
    const [row] = await q
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
