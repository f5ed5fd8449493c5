// Upload tickets and the images stored against them, in the database itself, so every replica reads
// every image and a ticket is spent once whichever replica the upload reaches.
import { and, count, eq, gt, inArray, isNotNull, isNull, lt, lte, sum } from "drizzle-orm";
import type { Dialect, Query } from "../dialect.ts";
import type { HeldCap, UploadQuota, UploadRecords, UploadRow } from "../store.ts";

export class SqlUploadRecords implements UploadRecords {
  constructor(private d: Dialect) {}

  issue(row: Pick<UploadRow, "id" | "spaceId" | "tokenHash" | "tokenId" | "contentType" | "maxBytes" | "expiresAt">, cap?: HeldCap): Promise<boolean> {
    return this.d.transaction(async (q) => {
      if (cap) {
        // Counted and issued under the token's lock: concurrent requests on any replica cannot pass the cap.
        const tokenId = row.tokenId ?? "";
        await this.d.lock(q, `upload_tickets:${tokenId}`);
        if ((await this.#unusedHeld(q, tokenId, cap.now)) >= cap.max) return false;
      }
      await q.insert(this.d.t.uploads).values(row);
      return true;
    });
  }

  unusedHeldBy(tokenId: string, now: string): Promise<number> {
    return this.#unusedHeld(this.d.db, tokenId, now);
  }

  async #unusedHeld(q: Query, tokenId: string, now: string): Promise<number> {
    const { t } = this.d;
    const [row] = await q
      .select({ held: count() })
      .from(t.uploads)
      .where(and(eq(t.uploads.tokenId, tokenId), isNull(t.uploads.storedAt), gt(t.uploads.expiresAt, now)));
    return Number(row?.held ?? 0);
  }

  async ticket(spaceId: string, tokenHash: string) {
    const { db, t } = this.d;
    const [row] = await db
      .select({ id: t.uploads.id, tokenId: t.uploads.tokenId, contentType: t.uploads.contentType, maxBytes: t.uploads.maxBytes, expiresAt: t.uploads.expiresAt, storedAt: t.uploads.storedAt, revokedAt: t.tokens.revokedAt })
      .from(t.uploads)
      .leftJoin(t.tokens, eq(t.uploads.tokenId, t.tokens.id))
      .where(and(eq(t.uploads.spaceId, spaceId), eq(t.uploads.tokenHash, tokenHash)));
    return row;
  }

  store(id: string, bytes: Uint8Array, at: string, quota: UploadQuota): Promise<boolean | "token" | "space"> {
    const { t } = this.d;
    return this.d.write(async (q) => {
      // Counted in the transaction that stores: SQLite runs one writer at a time, so the quota holds there exactly.
      const held = async (where: ReturnType<typeof eq>) => Number((await q.select({ bytes: sum(t.uploads.size) }).from(t.uploads).where(where))[0]?.bytes ?? 0);
      if (quota.tokenId && (await held(eq(t.uploads.tokenId, quota.tokenId))) + bytes.length > quota.tokenBytes) return "token";
      if ((await held(eq(t.uploads.spaceId, quota.spaceId))) + bytes.length > quota.spaceBytes) return "space";
      // The ticket is spent by the statement that stores the image: two racing uploads cannot both win.
      const spent = await q
        .update(t.uploads)
        .set({ storedAt: at, size: bytes.length, bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length) })
        .where(and(eq(t.uploads.id, id), isNull(t.uploads.storedAt)))
        .returning({ id: t.uploads.id });
      return spent.length === 1;
    });
  }

  async referenced(spaceId: string, ids: string[], at: string): Promise<void> {
    if (!ids.length) return;
    const { t } = this.d;
    await this.d.write((q) =>
      q
        .update(t.uploads)
        .set({ referencedAt: at })
        .where(and(eq(t.uploads.spaceId, spaceId), inArray(t.uploads.id, [...new Set(ids)]), isNull(t.uploads.referencedAt))),
    );
  }

  sweepOrphans(before: string): Promise<number> {
    const { t } = this.d;
    return this.d.write(async (q) => (await q.delete(t.uploads).where(and(isNull(t.uploads.referencedAt), isNotNull(t.uploads.storedAt), lt(t.uploads.storedAt, before))).returning({ id: t.uploads.id })).length);
  }

  async read(spaceId: string, id: string) {
    const { db, t } = this.d;
    const [row] = await db
      .select({ contentType: t.uploads.contentType, bytes: t.uploads.bytes })
      .from(t.uploads)
      .where(and(eq(t.uploads.id, id), eq(t.uploads.spaceId, spaceId)));
    if (!row?.bytes) return undefined;
    return { contentType: row.contentType, bytes: new Uint8Array(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength) };
  }

  async storedAmong(spaceId: string, ids: string[]): Promise<string[]> {
    if (!ids.length) return [];
    const { db, t } = this.d;
    const rows = await db
      .select({ id: t.uploads.id })
      .from(t.uploads)
      .where(and(eq(t.uploads.spaceId, spaceId), inArray(t.uploads.id, [...new Set(ids)]), isNotNull(t.uploads.storedAt)));
    return rows.map((r) => r.id);
  }

  sweepExpired(now: string): Promise<number> {
    const { t } = this.d;
    return this.d.write(async (q) => (await q.delete(t.uploads).where(and(isNull(t.uploads.storedAt), lte(t.uploads.expiresAt, now))).returning({ id: t.uploads.id })).length);
  }
}
