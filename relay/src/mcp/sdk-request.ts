// A request the session's SDK Server answers (everything but a blocking call sent alone and its
// resume): the SDK is told when the HTTP connection drops, which it does not notice, and a
// cancellation of a call on the relay's own stream, which the SDK does not know, ends that call.
import type { BlockingCalls } from "./blocking-call.ts";
import { openedAtOnce } from "./call-stream.ts";
import { cancelledIds, requestIds } from "./json-rpc.ts";
import type { Session, Sessions } from "./sessions.ts";

export interface SdkRequestDeps {
  calls: BlockingCalls;
  sessions: Sessions;
  /** Told of a response still being written, which a stopping relay lets finish. */
  track(written: Promise<void>): void;
}

export async function forward(deps: SdkRequestDeps, session: Session, request: Request, body: unknown): Promise<Response> {
  session.active++;
  deps.sessions.seen(session);
  for (const requestId of cancelledIds(body)) await deps.calls.cancel(session.id, requestId, session.calls.get(JSON.stringify(requestId)));
  const ids = requestIds(body);
  // The connection carrying these calls is gone: cancel them as if the client had, so their asks
  // stop showing `waiting` and nothing is handed to a reader who left.
  const dropped = () => {
    for (const requestId of ids) session.transport.onmessage?.({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "connection dropped" } });
  };
  request.signal.addEventListener("abort", dropped, { once: true });
  try {
    const response = await session.transport.handleRequest(request, body === undefined ? undefined : { parsedBody: body });
    // Gone while its body was read: the listener came too late to hear it.
    if (request.signal.aborted) dropped();
    const opened = openedAtOnce(response);
    if (opened.streaming) {
      session.streams++;
      void opened.written.finally(() => session.streams--);
    }
    if (request.method === "POST") deps.track(opened.written);
    return opened.response;
  } finally {
    session.active--;
    deps.sessions.idleFrom(session);
  }
}
