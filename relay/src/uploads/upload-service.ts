// Upload tickets and the images stored against them. A ticket is a URL that works once, for fifteen
// minutes (`LOOPBACK_UPLOAD_TTL_S`), for one image type, up to `maxBytes`; the body is read as a
// stream and cut off as soon as it passes the limit, so no upload is ever buffered beyond it. A token
// holds a capped number of unused tickets; those never used are swept once expired.
import { and, count, eq, gt, isNull, lte } from "drizzle-orm";
import type { ImageType, UploadReceipt, UploadTicket } from "@loopback/shared/generated/types";
import { problem } from "@loopback/shared/problems";
import type { Caller } from "../auth/gate.ts";
import type { Clock } from "../clock.ts";
import { hashSecret, newId, newSecret } from "../ids.ts";
import { changed, type Db } from "../storage/db.ts";
import { tokens, uploads } from "../storage/schema.ts";
import { assertUnderCap } from "../limits/per-token-cap.ts";
import { readCapped } from "../http/read-capped-body.ts";
import { isImageOfType, SIGNATURE_BYTES } from "./magic-bytes.ts";

export const UPLOAD_MAX_BYTES = 10 * 1024 * 1024;

export class UploadService {
  constructor(
    private db: Db,
    private clock: Clock,
    /** Read at each use: the public URL is known only once the server listens. */
    private config: { publicUrl: string; uploadTtlMs: number; maxUploadTicketsPerToken: number },
    private maxBytes = UPLOAD_MAX_BYTES,
  ) {}

  issueTicket(caller: Caller, contentType: ImageType): UploadTicket {
    const uploadId = newId("upl");
    const token = newSecret("up");
    const now = this.clock.nowMs();
    const expiresAt = new Date(now + this.config.uploadTtlMs).toISOString();
    this.db.transaction((tx) => {
      const { held } = tx
        .select({ held: count() })
        .from(uploads)
        .where(and(eq(uploads.tokenId, caller.tokenId), isNull(uploads.storedAt), gt(uploads.expiresAt, new Date(now).toISOString())))
        .get()!;
      assertUnderCap({ code: "upload.too_many", max: this.config.maxUploadTicketsPerToken, env: "LOOPBACK_MAX_UPLOAD_TICKETS" }, held);
      tx.insert(uploads)
        .values({ id: uploadId, spaceId: caller.spaceId, tokenHash: hashSecret(token), tokenId: caller.tokenId, contentType, maxBytes: this.maxBytes, expiresAt })
        .run();
    });
    const uploadUrl = `${this.config.publicUrl}/api/v1/uploads/${caller.spaceId}/${token}`;
    return {
      uploadId,
      uploadUrl,
      expiresAt,
      maxBytes: this.maxBytes,
      command: `curl --fail-with-body -X PUT -H 'Content-Type: ${contentType}' --data-binary @FILE '${uploadUrl}'`,
    };
  }

  async store(spaceId: string, token: string, contentType: string | null, body: ReadableStream<Uint8Array> | null): Promise<UploadReceipt> {
    const row = this.db
      .select({ id: uploads.id, contentType: uploads.contentType, maxBytes: uploads.maxBytes, expiresAt: uploads.expiresAt, storedAt: uploads.storedAt, revokedAt: tokens.revokedAt })
      .from(uploads)
      .leftJoin(tokens, eq(uploads.tokenId, tokens.id))
      .where(and(eq(uploads.spaceId, spaceId), eq(uploads.tokenHash, hashSecret(token))))
      .get();
    if (!row) throw problem("upload.not_found");
    if (row.storedAt) throw problem("upload.used");
    if (Date.parse(row.expiresAt) <= Date.now()) throw problem("upload.expired");
    if (row.revokedAt) throw problem("upload.expired", "The token it was issued to was revoked.");
    const type = row.contentType as ImageType;
    const declared = (contentType ?? "").split(";")[0].trim().toLowerCase();
    if (declared !== type) throw problem("upload.wrong_type", `This ticket takes ${type}.`);

    const bytes = await readCapped(body, row.maxBytes, "upload.too_large");
    if (!isImageOfType(type, bytes.subarray(0, SIGNATURE_BYTES))) throw problem("upload.not_image");

    // The ticket is spent by the same statement that stores the image: two racing uploads cannot both win.
    const res = this.db
      .update(uploads)
      .set({ storedAt: this.clock.now(), size: bytes.length, bytes: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length) })
      .where(and(eq(uploads.id, row.id), isNull(uploads.storedAt)))
      .run();
    if (changed(res) !== 1) throw problem("upload.used");
    return { uploadId: row.id, contentType: type, size: bytes.length };
  }

  read(caller: Caller, uploadId: string): { contentType: ImageType; bytes: Uint8Array } {
    const row = this.db
      .select({ contentType: uploads.contentType, bytes: uploads.bytes })
      .from(uploads)
      .where(and(eq(uploads.id, uploadId), eq(uploads.spaceId, caller.spaceId)))
      .get();
    if (!row?.bytes) throw problem("file.not_found");
    return { contentType: row.contentType as ImageType, bytes: row.bytes };
  }

  /** Deletes tickets that expired unused: nothing refers to them, and nothing can use them. Returns how many. */
  sweepExpired(): number {
    return changed(
      this.db
        .delete(uploads)
        .where(and(isNull(uploads.storedAt), lte(uploads.expiresAt, new Date().toISOString())))
        .run(),
    );
  }

  /** The ids among `uploadIds` that are not stored images of this space. */
  missing(spaceId: string, uploadIds: string[]): string[] {
    return [...new Set(uploadIds)].filter((id) => {
      const row = this.db
        .select({ storedAt: uploads.storedAt })
        .from(uploads)
        .where(and(eq(uploads.id, id), eq(uploads.spaceId, spaceId)))
        .get();
      return !row?.storedAt;
    });
  }
}
