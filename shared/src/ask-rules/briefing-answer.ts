import type { AgentEntry, Ask, BriefingAnswerInput, BriefingAsk } from "../generated/types.ts";
import { problem, type LoopbackProblem } from "../problems.ts";
import { allPoints, MAX_POINT_DEPTH, openPoints, pointDepth, pointsAwaitingAnswer, subPoints, toPoint } from "./briefing-points.ts";
import { checkSize } from "./size.ts";
import { checkMove } from "./whose-move.ts";

// Sub-points are bounded by depth and by each answer's 256 KiB, not by the briefing's fifty: those
// limit what the person faces at once, and sub-points only open on points the person chose to pursue.

/** Why the agent may not send these answers on this ask, or null. */
export function checkBriefingAnswer(ask: Ask, input: BriefingAnswerInput): LoopbackProblem | null {
  const tooLarge = checkSize(input);
  if (tooLarge) return tooLarge;
  if (ask.kind !== "briefing") return problem("answer.wrong_kind", `This ask is a ${ask.kind}.`);
  const move = checkMove(ask, "agent");
  if (move) return move;
  const known = new Set(allPoints(ask).map((point) => point.id));
  const open = new Set(openPoints(ask).map((point) => point.id));
  const answered = new Set<string>();
  for (const { point, points } of input.answers) {
    if (!known.has(point)) return problem("answer.unknown_point", `There is no point ${point}.`);
    if (answered.has(point)) return problem("answer.point_twice", `Point ${point} is answered twice.`);
    answered.add(point);
    if (!open.has(point)) return problem("answer.point_resolved", `Point ${point} is resolved.`);
    if (points?.length && pointDepth(point) >= MAX_POINT_DEPTH) return problem("answer.too_deep", `Point ${point} cannot break into sub-points.`);
  }
  const missing = pointsAwaitingAnswer(ask).filter((point) => !answered.has(point.id));
  if (missing.length > 0) return problem("answer.missing_point", `Still to answer: ${missing.map((point) => point.id).join(", ")}.`);
  return null;
}

/**
 * The briefing after the agent's answers: one entry per point answered, in the order given, with
 * sub-points numbered on from any the point already has; the move goes back to the person. Throws
 * what `checkBriefingAnswer` refuses.
 */
export function applyBriefingAnswer(ask: Ask, input: BriefingAnswerInput, at: string): BriefingAsk {
  const refused = checkBriefingAnswer(ask, input);
  if (refused) throw refused;
  const briefing = ask as BriefingAsk;
  const entries = input.answers.map(({ point, answer, content, points = [] }): AgentEntry => {
    const taken = Math.max(0, ...subPoints(briefing, point).map((sub) => Number(sub.id.slice(point.length + 1))));
    const numbered = points.map((sub, index) => toPoint(`${point}.${taken + index + 1}`, sub));
    return { author: "agent", answer, ...(content !== undefined && { content }), point, ...(numbered.length > 0 && { points: numbered }), at };
  });
  return { ...briefing, thread: [...briefing.thread, ...entries], status: "awaiting_human", updatedAt: at };
}
