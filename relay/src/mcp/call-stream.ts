// The SSE stream that carries one blocking call, written by the relay instead of the SDK's Protocol
// and transport: a first event at once (a priming event for a client that resumes streams, else a
// comment, since Bun sends a stream's headers only with its first chunk), a keepalive while the
// person thinks, each progress notification, and the result. For a client that resumes, every event
// has an id of the call's durable record and the result the record's `done` id, so a client holding
// it is never answered twice. Measured after a pause (issue 16), the SDK's JSON-RPC and result
// validation and its stream cost ~0.4 ms on the ask's way in and the reply's way out.
import type { CallToolResult, JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";

export const SSE_HEADERS = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform", Connection: "keep-alive", "X-Accel-Buffering": "no" };
const SSE_KEEPALIVE_MS = 15_000;

const encoder = new TextEncoder();
const OPENED = encoder.encode(": open\n\n");
const KEEPALIVE = encoder.encode(": keepalive\n\n");

export interface StreamedCall {
  /** The JSON-RPC id the result answers. */
  requestId: RequestId;
  /** The call's durable record, when the client resumes streams: its events carry ids of it. */
  callId?: string;
  /** How long a client waits before resuming a dropped stream. */
  retryMs: number;
  /** Extra response headers (the session id). */
  headers: Record<string, string>;
  /** Runs the call; resolves with its result, or with nothing when the stream is to end without one (dropped, handed over). */
  run(progress: (notification: { method: string; params: Record<string, unknown> }) => void): Promise<CallToolResult | undefined>;
  /** The client stopped reading. */
  cancel(): void;
  /** The stream ended, however it did. */
  ended(): void;
}

export function callStream(call: StreamedCall): Response {
  const { callId } = call;
  const readable = new ReadableStream<Uint8Array>({
    start: (controller) => {
      let n = 0;
      const send = (message: JSONRPCMessage, id: string | undefined) => controller.enqueue(encoder.encode(sse(message, id)));
      controller.enqueue(callId ? encoder.encode(priming(callId, call.retryMs)) : OPENED);
      const keepalive = setInterval(() => {
        try {
          controller.enqueue(KEEPALIVE);
        } catch {
          // Cancelled meanwhile: the call is being stopped.
        }
      }, SSE_KEEPALIVE_MS);
      let running: Promise<CallToolResult | undefined>;
      try {
        running = call.run((notification) => send({ jsonrpc: "2.0", ...notification } as JSONRPCMessage, callId && `${callId}:${++n}`));
      } catch (e) {
        running = Promise.reject(e);
      }
      // Written in the turn the result is ready, not after an `await` chain.
      void running
        .then((result) => {
          if (result) send({ jsonrpc: "2.0", id: call.requestId, result } as JSONRPCMessage, callId && `${callId}:done`);
        })
        .catch(() => {
          // The client left while the result was being written: it resumes, or it is gone.
        })
        .finally(() => {
          clearInterval(keepalive);
          call.ended();
          closeQuietly(controller);
        });
    },
    cancel: () => call.cancel(),
  });
  return new Response(readable, { status: 200, headers: { ...SSE_HEADERS, ...call.headers } });
}

export const priming = (callId: string, retryMs: number) => `id: ${callId}:0\nretry: ${Math.round(retryMs)}\ndata: \n\n`;

const sse = (message: JSONRPCMessage, id: string | undefined) => `event: message\n${id ? `id: ${id}\n` : ""}data: ${JSON.stringify(message)}\n\n`;

function closeQuietly(controller: ReadableStreamDefaultController<Uint8Array>): void {
  try {
    controller.close();
  } catch {
    // Already closed.
  }
}
