// The one mapping from a refusal to an HTTP answer: the contract's `Problem` as JSON, with the status
// from the problems table. Anything that is not a known refusal is logged and answered as `internal`,
// without a stack trace or a message that could leak what went wrong inside.
import { LoopbackProblem, problem } from "@loopback/shared/problems";
import { log } from "../logging/log.ts";

/** Every cap and limit that answers 429 frees up within a minute or so: the failure window, a ticket's life. */
export const RETRY_AFTER_S = 60;

/** Seconds a client is told to wait before trying again when the relay cannot serve for now (`503`). */
export const UNAVAILABLE_RETRY_AFTER_S = 1;

const retryAfter = (status: number): number | undefined => (status === 429 ? RETRY_AFTER_S : status === 503 ? UNAVAILABLE_RETRY_AFTER_S : undefined);

export function problemResponse(error: unknown, headers: Record<string, string> = {}): Response {
  const p = error instanceof LoopbackProblem ? error : internal(error);
  const wait = retryAfter(p.status);
  return Response.json(p.toProblem(), { status: p.status, headers: wait === undefined ? headers : { ...headers, "Retry-After": String(wait) } });
}

function internal(error: unknown): LoopbackProblem {
  log("http").error("internal error: {message}", { message: error instanceof Error ? error.message : String(error), error });
  return problem("internal");
}
