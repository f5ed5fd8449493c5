// Reads a request body without ever holding more than a limit in memory. A declared length is
// checked up front and then enforced by the server, so the body is read whole; without one, it is
// read as a stream and cut off as soon as it passes the limit.
import { problem, type ProblemCode } from "@loopback/shared/problems";

export async function readCappedBody(request: Request, maxBytes: number, tooLarge: ProblemCode): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  const length = Number(declared);
  if (declared !== null && Number.isInteger(length)) {
    if (length > maxBytes) throw problem(tooLarge);
    return new Uint8Array(await request.arrayBuffer().catch(cutOff));
  }
  return readCapped(request.body, maxBytes, tooLarge);
}

/** The connection closed before the whole body came (the client left, or stalled past the idle timeout): no fault of the relay's. */
function cutOff(): never {
  throw problem("body.malformed", "The body was cut off before its end.");
}

export async function readCapped(body: ReadableStream<Uint8Array> | null, maxBytes: number, tooLarge: ProblemCode): Promise<Uint8Array> {
  if (!body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read().catch(cutOff);
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
