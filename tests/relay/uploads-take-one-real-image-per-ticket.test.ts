import { afterAll, beforeAll, expect, test } from "bun:test";
import { scene, type Scene } from "../support/scene.ts";
import { PNG, put, uploadTicket } from "./upload-image.ts";

let s: Scene;
beforeAll(async () => {
  s = await scene();
});
afterAll(() => s.dispose());

const MAX_BYTES = 10 * 1024 * 1024;
const bytes = (...parts: (number[] | string | Uint8Array)[]) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : Buffer.from(p as Uint8Array))));
const JPEG = bytes([0xff, 0xd8, 0xff, 0xe0], "rest of a jpeg");
const GIF = bytes("GIF89a", [1, 0, 1, 0, 0, 0, 0]);
const WEBP = bytes("RIFF", [0x1a, 0, 0, 0], "WEBPVP8 ", [0, 0, 0, 0]);

/** `size` bytes that start like a PNG, sent as a stream of 1 MiB chunks (no Content-Length). */
function streamedPng(size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= size) return controller.close();
      const chunk = new Uint8Array(Math.min(1024 * 1024, size - sent));
      if (sent === 0) chunk.set(PNG.subarray(0, 8));
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
}

test("an image is stored once against its ticket and served back with its type, nosniff and a sandboxing CSP", async () => {
  const before = Date.now();
  const ticket = await uploadTicket(s.agent);
  expect(ticket.maxBytes).toBe(MAX_BYTES);
  expect(Date.parse(ticket.expiresAt) - before).toBeGreaterThan(14 * 60_000);
  expect(Date.parse(ticket.expiresAt) - before).toBeLessThanOrEqual(15 * 60_000 + 1000);
  expect(ticket.command).toContain(ticket.uploadUrl);

  const stored = await put(ticket, PNG);
  expect(stored.status).toBe(201);
  expect(stored.body).toEqual({ uploadId: ticket.uploadId, contentType: "image/png", size: PNG.length });

  const file = await s.person.api("GET", `/files/${ticket.uploadId}`);
  expect(file.status).toBe(200);
  expect(file.headers.get("content-type")).toBe("image/png");
  expect(file.headers.get("x-content-type-options")).toBe("nosniff");
  expect(file.headers.get("content-security-policy")).toContain("default-src 'none'");
  expect(new Uint8Array(file.body)).toEqual(PNG);

  const again = await put(ticket, PNG);
  expect([again.status, again.body.code]).toEqual([410, "upload.used"]);
});

test("each supported image type is taken by a ticket issued for it", async () => {
  for (const [type, image] of [
    ["image/jpeg", JPEG],
    ["image/gif", GIF],
    ["image/webp", WEBP],
  ] as const) {
    const ticket = await uploadTicket(s.agent, type);
    const res = await put(ticket, image, type);
    expect([type, res.status]).toEqual([type, 201]);
    const file = await s.person.api("GET", `/files/${ticket.uploadId}`);
    expect(file.headers.get("content-type")).toBe(type);
  }
});

test("a ticket takes only the Content-Type it was issued for, and a refusal does not spend it", async () => {
  const ticket = await uploadTicket(s.agent);
  for (const type of ["image/jpeg", "image/svg+xml", "text/html", "application/octet-stream", ""]) {
    const res = await put(ticket, PNG, type);
    expect([type, res.status, res.body.code]).toEqual([type, 422, "upload.wrong_type"]);
  }
  expect((await put(ticket, PNG, "image/png; charset=binary")).status).toBe(201);
});

test("bytes that are not an image of the ticket's type are refused, however they are labelled", async () => {
  const ticket = await uploadTicket(s.agent);
  const markup = [
    '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
    "<!doctype html><html><script>alert(1)</script></html>",
    JPEG,
    GIF,
    new Uint8Array(),
    PNG.subarray(0, 7),
  ];
  for (const body of markup) {
    const res = await put(ticket, body);
    expect([res.status, res.body.code]).toEqual([422, "upload.not_image"]);
  }
  const gifTicket = await uploadTicket(s.agent, "image/gif");
  expect((await put(gifTicket, bytes("GIF87b", [0, 0]), "image/gif")).body.code).toBe("upload.not_image");
  expect((await put(ticket, PNG)).status).toBe(201);
});

test("an image over 10 MiB is refused with 413, whether its length is declared or streamed", async () => {
  const ticket = await uploadTicket(s.agent);
  const tooBig = new Uint8Array(MAX_BYTES + 1);
  tooBig.set(PNG.subarray(0, 8));
  const declared = await put(ticket, tooBig);
  expect([declared.status, declared.body.code]).toEqual([413, "upload.too_large"]);
  const streamed = await put(ticket, streamedPng(MAX_BYTES + 1));
  expect([streamed.status, streamed.body.code]).toEqual([413, "upload.too_large"]);

  const justFits = await put(ticket, streamedPng(MAX_BYTES));
  expect(justFits.status).toBe(201);
  expect(justFits.body.size).toBe(MAX_BYTES);
});

test("an unknown upload ticket or file is 404", async () => {
  const ticket = await uploadTicket(s.agent);
  const unknown = await put(ticket.uploadUrl.replace(/\/[^/]+$/, "/up_not-a-real-ticket"), PNG);
  expect([unknown.status, unknown.body.code]).toEqual([404, "upload.not_found"]);
  const noSpace = await put(ticket.uploadUrl.replace(/\/uploads\/[^/]+\//, "/uploads/spc_nowhere/"), PNG);
  expect([noSpace.status, noSpace.body.code]).toEqual([404, "upload.not_found"]);

  const notStoredYet = await s.person.api("GET", `/files/${ticket.uploadId}`);
  expect([notStoredYet.status, notStoredYet.body.code]).toEqual([404, "file.not_found"]);
  const never = await s.person.api("GET", "/files/upl_nothing");
  expect([never.status, never.body.code]).toEqual([404, "file.not_found"]);
});
