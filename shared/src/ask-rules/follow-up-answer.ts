import type { AgentEntry, Ask, FollowUpInput } from "../generated/types.ts";
import { problem, type LoopbackProblem } from "../problems.ts";
import { latestReply } from "./latest-reply.ts";
import { checkSize } from "./size.ts";
import { checkMove } from "./whose-move.ts";

/** Why the agent may not answer what the person asked back, or null. */
export function checkFollowUpAnswer(ask: Ask, input: FollowUpInput): LoopbackProblem | null {
  const refused = checkSize(input) ?? checkMove(ask, "agent");
  if (refused) return refused;
  if (latestReply(ask)?.reply.outcome !== "follow_up") {
    return problem("answer.no_follow_up", ask.kind === "briefing" ? "Answer a briefing's points with answer_briefing." : undefined);
  }
  return null;
}

/** The ask after the agent's answer to a follow-up; the move goes back to the person. Throws what `checkFollowUpAnswer` refuses. */
export function applyFollowUpAnswer<A extends Ask>(ask: A, input: FollowUpInput, at: string): A {
  const refused = checkFollowUpAnswer(ask, input);
  if (refused) throw refused;
  const entry: AgentEntry = { author: "agent", answer: input.answer, ...(input.content !== undefined && { content: input.content }), at };
  return { ...ask, thread: [...ask.thread, entry], status: "awaiting_human", updatedAt: at };
}
