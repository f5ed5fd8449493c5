// Upload tickets and the images stored against them. A ticket is a URL that works once, for fifteen
// minutes (`LOOPBACK_UPLOAD_TTL_S`), for one image type, up to `maxBytes`; the body is read as a
// stream and cut off as soon as it passes the limit, so no upload is ever buffered beyond it. A token
// holds a capped number of unused tickets; those never used are swept once expired. Tickets and
// images are in the store, so a ticket issued by one replica takes the upload on another.
import type { ImageType, UploadReceipt, UploadTicket } from "@loopback/shared/generated/types";
import { problem } from "@loopback/shared/problems";
import type { Caller } from "../auth/gate.ts";
import type { Clock } from "../clock.ts";
import { hashSecret, newId, newSecret } from "../ids.ts";
import type { UploadRecords } from "../storage/store.ts";
import { refuseOverCap } from "../limits/per-token-cap.ts";
import { readCapped } from "../read-capped-body.ts";
import { isImageOfType, SIGNATURE_BYTES } from "./magic-bytes.ts";

export const UPLOAD_MAX_BYTES = 10 * 1024 * 1024;

export class UploadService {
  constructor(
    private records: UploadRecords,
    private clock: Clock,
    /** Read at each use: the public URL is known only once the server listens. */
    private config: { publicUrl: string; uploadTtlMs: number; maxUploadTicketsPerToken: number; uploadQuotaTokenBytes: number; uploadQuotaSpaceBytes: number },
    private maxBytes = UPLOAD_MAX_BYTES,
  ) {}

  async issueTicket(caller: Caller, contentType: ImageType): Promise<UploadTicket> {
    const uploadId = newId("upl");
    const token = newSecret("up");
    const now = this.clock.nowMs();
    const expiresAt = new Date(now + this.config.uploadTtlMs).toISOString();
    const cap = { code: "upload.too_many", max: this.config.maxUploadTicketsPerToken, env: "LOOPBACK_MAX_UPLOAD_TICKETS" } as const;
    const row = { id: uploadId, spaceId: caller.spaceId, tokenHash: hashSecret(token), tokenId: caller.tokenId, contentType, maxBytes: this.maxBytes, expiresAt };
    if (!(await this.records.issue(row, { max: cap.max, now: new Date(now).toISOString() }))) refuseOverCap(cap);
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
    const { uploadQuotaTokenBytes: tokenBytes, uploadQuotaSpaceBytes: spaceBytes } = this.config;
    const row = await this.records.ticket(spaceId, hashSecret(token));
    if (!row) throw problem("upload.not_found");
    if (row.storedAt) throw problem("upload.used");
    if (Date.parse(row.expiresAt) <= this.clock.wallMs()) throw problem("upload.expired");
    if (row.revokedAt) throw problem("upload.expired", "The token it was issued to was revoked.");
    const type = row.contentType as ImageType;
    const declared = (contentType ?? "").split(";")[0].trim().toLowerCase();
    if (declared !== type) throw problem("upload.wrong_type", `This ticket takes ${type}.`);

    const bytes = await readCapped(body, row.maxBytes, "upload.too_large");
    if (!isImageOfType(type, bytes.subarray(0, SIGNATURE_BYTES))) throw problem("upload.not_image");

    // The ticket is spent by the same statement that stores the image: two racing uploads cannot both win.
    const stored = await this.records.store(row.id, bytes, this.clock.now(), { tokenId: row.tokenId, spaceId, tokenBytes, spaceBytes });
    if (stored === "token") throw problem("upload.over_quota", "The token that asked for this ticket holds as many image bytes as it may (LOOPBACK_UPLOAD_QUOTA_TOKEN_MB).");
    if (stored === "space") throw problem("upload.over_quota", "This space holds as many image bytes as it may (LOOPBACK_UPLOAD_QUOTA_SPACE_MB).");
    if (!stored) throw problem("upload.used");
    return { uploadId: row.id, contentType: type, size: bytes.length };
  }

  async read(caller: Caller, uploadId: string): Promise<{ contentType: ImageType; bytes: Uint8Array }> {
    const file = await this.records.read(caller.spaceId, uploadId);
    if (!file) throw problem("file.not_found");
    return { contentType: file.contentType as ImageType, bytes: file.bytes };
  }

  /**
   * Deletes tickets that expired unused (nothing refers to them, and nothing can use them), and images
   * no ask named within a ticket's time after they were stored. Returns how many.
   */
  async sweepExpired(): Promise<number> {
    const now = this.clock.wallMs();
    return (await this.records.sweepExpired(new Date(now).toISOString())) + (await this.records.sweepOrphans(new Date(now - this.config.uploadTtlMs).toISOString()));
  }

  /**
   * The ids among `uploadIds` that are not stored images of this space. Those that are count as named
   * by an ask from now on, and are kept.
   */
  async missing(spaceId: string, uploadIds: string[]): Promise<string[]> {
    if (!uploadIds.length) return [];
    const stored = new Set(await this.records.storedAmong(spaceId, uploadIds));
    const missing = [...new Set(uploadIds)].filter((id) => !stored.has(id));
    if (!missing.length) await this.records.referenced(spaceId, [...stored], this.clock.now());
    return missing;
  }
}
