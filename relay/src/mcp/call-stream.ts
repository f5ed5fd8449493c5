// The SSE stream that carries one blocking call, written by the relay instead of the SDK's Protocol
// and transport: a first event at once, a keepalive while the person thinks, each progress
// notification, and the result. Every event has an id of the call's durable record, the result the
// record's `done` id, so a client that resumes (`GET` + `Last-Event-ID`) is never answered twice.
// The first event carries the first id in a form each client reads without a message: a priming
// event (an id and empty data) for protocol 2025-11-25, which older SDKs would parse as a broken
// message; before it, an event of its own type with an empty JSON object, whose id every SDK keeps
// (the TypeScript SDK's and rmcp's parsers take the id of any event) and whose body none reads as a
// message (they read only `message` events), and which the TypeScript SDK's older parser does not
// drop as it drops an event without data. The relay's own stream skips the SDK's JSON-RPC and result
// validation, which cost ~0.4 ms on the ask's way in and the reply's way out.
import type { CallToolResult, JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";

export const SSE_HEADERS = { "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform", Connection: "keep-alive", "X-Accel-Buffering": "no" };
const SSE_KEEPALIVE_MS = 15_000;

const OPENED = ": open\n\n";
const KEEPALIVE = ": keepalive\n\n";

export interface StreamedCall {
  /** The JSON-RPC id the result answers. */
  requestId: RequestId;
  /** The call's durable record: its events carry ids of it. */
  callId?: string;
  /** The client reads a priming event (protocol 2025-11-25 and later). */
  readsPriming: boolean;
  /** How long a client waits before resuming a dropped stream. */
  retryMs: number;
  /** Extra response headers (the session id). */
  headers: Record<string, string>;
  /**
   * Runs the call; resolves with its result, or with nothing when the stream is to end without one
   * (dropped, handed over). `result` writes the result sooner, when the call knows it sooner.
   */
  run(progress: (notification: { method: string; params: Record<string, unknown> }) => void, result: (result: CallToolResult) => void): Promise<CallToolResult | undefined>;
  /** The client stopped reading. */
  cancel(): void;
  /** The stream ended, however it did. */
  ended(): void;
}

export function callStream(call: StreamedCall): Response {
  const { callId } = call;
  // A direct stream: an event written and flushed leaves at the end of the event loop's turn, after
  // its immediates, as a default stream's chunk does; closing it sends what was written at once,
  // which the result, its last event, does (see `answer`).
  // The call runs from now, not from when Bun first pulls the body: what it writes before then waits.
  let controller: ReadableStreamDirectController | undefined;
  const early: string[] = [callId ? (call.readsPriming ? priming : opening)(callId, call.retryMs) : OPENED];
  const write = (text: string) => {
    if (!controller) return void early.push(text);
    controller.write(text);
    void controller.flush();
  };
  let n = 0;
  const send = (message: JSONRPCMessage, id: string | undefined) => write(sse(message, id));
  const keepalive = setInterval(() => {
    try {
      write(KEEPALIVE);
    } catch {
      // Cancelled meanwhile: the call is being stopped.
    }
  }, SSE_KEEPALIVE_MS);
  let answered = false;
  const answer = (result: CallToolResult) => {
    if (answered) return;
    answered = true;
    send({ jsonrpc: "2.0", id: call.requestId, result } as JSONRPCMessage, callId && `${callId}:done`);
    // The result is the stream's last event. Closed with it, it leaves at once: a direct stream's
    // flushed write otherwise waits for the end of the event loop's turn, after its immediates, so
    // behind everything the relay does once the reply is committed (the frames, the person's `200`).
    if (controller) closeQuietly(controller);
  };
  const running = (async () => {
    try {
      const result = await call.run(
        (notification) => send({ jsonrpc: "2.0", ...notification } as JSONRPCMessage, callId && `${callId}:${++n}`),
        (result) => {
          try {
            answer(result);
          } catch {
            // The client left: the call ends as it would have.
          }
        },
      );
      if (result) answer(result);
    } catch {
      // The call failed to run, or the client left while the result was being written: it resumes, or it is gone.
    } finally {
      clearInterval(keepalive);
      call.ended();
    }
  })();
  const body = directStream({
    type: "direct",
    pull: async (c) => {
      controller = c;
      for (const text of early.splice(0)) c.write(text);
      void c.flush();
      await running;
      closeQuietly(c);
    },
    cancel: () => call.cancel(),
  });
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...call.headers } });
}

/** The call a `Last-Event-ID` of its stream names, and whether it is the result's (the client has that). */
export function streamEventOf(eventId: string): { callId: string; done: boolean } | undefined {
  const m = /^(cal_[0-9a-z]+):(\w+)$/.exec(eventId);
  return m ? { callId: m[1], done: m[2] === "done" } : undefined;
}

export const priming = (callId: string, retryMs: number) => `id: ${callId}:0\nretry: ${Math.round(retryMs)}\ndata: \n\n`;

/** The first id for a client on an older protocol: an event no SDK reads as a message (see above). */
export const opening = (callId: string, retryMs: number) => `event: ${OPENING_EVENT}\nid: ${callId}:0\nretry: ${Math.round(retryMs)}\ndata: {}\n\n`;
export const OPENING_EVENT = "loopback-call";

const sse = (message: JSONRPCMessage, id: string | undefined) => `event: message\n${id ? `id: ${id}\n` : ""}data: ${JSON.stringify(message)}\n\n`;

/** Bun's direct stream; the DOM's `ReadableStream` declaration, also in scope, hides its constructor's type. */
const directStream = (source: Bun.DirectUnderlyingSource<string>) => new ReadableStream(source as unknown as UnderlyingDefaultSource<string>);

function closeQuietly(controller: ReadableStreamDirectController): void {
  try {
    controller.close();
  } catch {
    // Already closed.
  }
}

const OPENED_BYTES = new TextEncoder().encode(OPENED);

/**
 * Bun holds a streamed response's headers back until its first chunk, so a client would not see an
 * SSE stream of the SDK's start until the first progress or keepalive (a blocking call in a batch).
 * An SSE comment first sends them at once. `written` settles once the body has been passed on.
 */
export function openedAtOnce(response: Response): { response: Response; streaming: boolean; written: Promise<void> } {
  if (!response.body || !response.headers.get("content-type")?.startsWith("text/event-stream")) return { response, streaming: false, written: Promise.resolve() };
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>({
    start: (controller) => controller.enqueue(OPENED_BYTES),
  });
  // A client that goes away cancels `readable`, and piping passes that on to the SDK's stream.
  const written = response.body.pipeTo(writable).catch(() => {});
  return { response: new Response(readable, { status: response.status, headers: response.headers }), streaming: true, written };
}
