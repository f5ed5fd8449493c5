// The one mapping from a refusal to an HTTP answer: the contract's `Problem` as JSON, with the status
// from the problems table. Anything that is not a known refusal is logged and answered as `internal`,
// without a stack trace or a message that could leak what went wrong inside.
import { LoopbackProblem, problem } from "@loopback/shared/problems";

export function problemResponse(error: unknown, headers: Record<string, string> = {}): Response {
  const p = error instanceof LoopbackProblem ? error : internal(error);
  return Response.json(p.toProblem(), { status: p.status, headers });
}

function internal(error: unknown): LoopbackProblem {
  console.error("internal error:", error instanceof Error ? (error.stack ?? error.message) : error);
  return problem("internal");
}
