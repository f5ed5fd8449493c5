import type { Ask } from "../generated/types.ts";
import { problem, type LoopbackProblem } from "../problems.ts";

export type Side = "human" | "agent";

export function whoseMove(ask: Ask): Side | "nobody" {
  switch (ask.status) {
    case "awaiting_human":
      return "human";
    case "awaiting_agent":
      return "agent";
    case "closed":
      return "nobody";
  }
}

/** Refuses anything added to a closed ask, or by the side whose move it is not. */
export function checkMove(ask: Ask, side: Side): LoopbackProblem | null {
  const move = whoseMove(ask);
  if (move === "nobody") return problem("ask.closed");
  if (move !== side) return problem("ask.not_your_turn", move === "agent" ? "The agent is answering." : "The person has not replied yet.");
  return null;
}
