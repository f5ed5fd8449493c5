// Reads a request body as a stream and stops as soon as it passes `maxBytes`, so no body is ever
// held in memory beyond the limit, whatever Content-Length claims (or whether it is sent at all).
import { problem, type ProblemCode } from "@loopback/shared/problems";

export async function readCapped(body: ReadableStream<Uint8Array> | null, maxBytes: number, tooLarge: ProblemCode): Promise<Uint8Array> {
  if (!body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw problem(tooLarge);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}
