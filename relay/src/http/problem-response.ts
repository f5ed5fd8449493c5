// The one mapping from a refusal to an HTTP answer: the contract's `Problem` as JSON, with the status
// from the problems table. Anything that is not a known refusal is logged and answered as `internal`,
// without a stack trace or a message that could leak what went wrong inside.
import { LoopbackProblem, problem } from "@loopback/shared/problems";

/** Seconds a client is told to wait before trying again when the relay cannot serve for now (`503`). */
export const RETRY_AFTER_S = 1;

export function problemResponse(error: unknown, headers: Record<string, string> = {}): Response {
  const p = error instanceof LoopbackProblem ? error : internal(error);
  return Response.json(p.toProblem(), { status: p.status, headers: p.status === 503 ? { ...headers, "Retry-After": String(RETRY_AFTER_S) } : headers });
}

function internal(error: unknown): LoopbackProblem {
  console.error("internal error:", error instanceof Error ? (error.stack ?? error.message) : error);
  return problem("internal");
}
