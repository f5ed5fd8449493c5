// The response that carries one blocking call on the relay's own stream (call-stream.ts), tied to
// its session and its connection: the session knows the call by its JSON-RPC id while it runs, so
// the client can cancel it; a connection that drops drops the call, which its client then resumes.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { DurableCall, OnProgress, OnResult } from "./blocking-call.ts";
import { callStream } from "./call-stream.ts";
import { protocolOf, RESUMABLE_PROTOCOL } from "./clients.ts";
import { progress } from "./session.ts";
import type { Session, Sessions } from "./sessions.ts";

export interface CallResponseDeps {
  sessions: Pick<Sessions, "idleFrom">;
  /** Told of a response still being written, which a stopping relay lets finish. */
  track(written: Promise<void>): void;
  /** How long a client waits before resuming a dropped stream. */
  retryMs: number;
}

/** What runs the call: with progress when its client asked for it, and a result heard early. */
export type RunCall = (onProgress: OnProgress | undefined, onResult: OnResult) => Promise<CallToolResult>;

/** The call's stream answers its record's request id, with progress when the record has a token for it. */
export function callResponse(deps: CallResponseDeps, session: Session, request: Request, call: DurableCall, run: RunCall): Response {
  const { id: callId, requestId, progressToken } = call.durable;
  const key = JSON.stringify(requestId);
  session.calls.set(key, call);
  const drop = () => call.drop();
  request.signal.addEventListener("abort", drop, { once: true });
  // Gone while its ask was opened: the listener came too late to hear it.
  if (request.signal.aborted) drop();
  const written = Promise.withResolvers<void>();
  deps.track(written.promise);
  return callStream({
    requestId,
    callId,
    readsPriming: protocolOf(request) >= RESUMABLE_PROTOCOL,
    retryMs: deps.retryMs,
    headers: { "mcp-session-id": session.id },
    // Stopped (cancelled, dropped, handed over): nobody reads a result, or the client resumes.
    run: (send, result) => run(progressToken === undefined ? undefined : (waitedMs) => send(progress(progressToken, waitedMs)), result).catch(() => undefined),
    cancel: drop,
    ended: () => {
      request.signal.removeEventListener("abort", drop);
      if (session.calls.get(key) === call) session.calls.delete(key);
      deps.sessions.idleFrom(session);
      written.resolve();
    },
  });
}
