// The one mapping from a refusal to an HTTP answer: the contract's `Problem` as JSON, with the status
// from the problems table. Anything that is not a known refusal is logged and answered as `internal`,
// without a stack trace or a message that could leak what went wrong inside.
import { LoopbackProblem, problem } from "@loopback/shared/problems";
import { log } from "../logging/log.ts";

/** Every cap and limit that answers 429 frees up within a minute or so: the failure window, a ticket's life. */
export const RETRY_AFTER_S = 60;

export function problemResponse(error: unknown, headers: Record<string, string> = {}): Response {
  const p = error instanceof LoopbackProblem ? error : internal(error);
  return Response.json(p.toProblem(), { status: p.status, headers: p.status === 429 ? { ...headers, "Retry-After": String(RETRY_AFTER_S) } : headers });
}

function internal(error: unknown): LoopbackProblem {
  log("http").error("internal error: {message}", { message: error instanceof Error ? error.message : String(error), error });
  return problem("internal");
}
