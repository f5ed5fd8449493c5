import type { Answered, Ask, AskKind, BriefingAsk, QuestionPrompt, Reply, Responded } from "../generated/types.ts";
import { problem, type LoopbackProblem } from "../problems.ts";
import { checkComments } from "./check-comments.ts";
import { allPoints, leftToAnswer, openPoints } from "./briefing-points.ts";
import { hasWords } from "./has-words.ts";
import { whoseMove } from "./whose-move.ts";

export type Outcome = Reply["outcome"];

const OUTCOMES_BY_KIND = {
  question: ["answered", "follow_up", "dismissed"],
  review: ["approved", "changes_requested", "follow_up", "dismissed"],
  briefing: ["responded", "dismissed"],
  // A permission is given or refused: the agent waits on it and cannot answer a question back.
  approval: ["allowed", "denied"],
} as const satisfies Record<AskKind, readonly Outcome[]>;

/** The replies the person may send on the ask as it stands, whatever they put in them. */
export function allowedReplies(ask: Ask): Set<Outcome> {
  switch (whoseMove(ask)) {
    case "human":
      return new Set(OUTCOMES_BY_KIND[ask.kind]);
    case "agent":
      // A briefing can take many rounds; the person may walk away from it while the agent writes.
      return new Set(ask.kind === "briefing" ? ["dismissed"] : []);
    case "nobody":
      return new Set();
  }
}

/** Every rule of `Asks.reply`: why the person may not send this reply on this ask, or null. */
export function checkReply(ask: Ask, reply: Reply): LoopbackProblem | null {
  if (!allowedReplies(ask).has(reply.outcome)) {
    if (ask.status === "closed") return problem("ask.closed");
    if (ask.status === "awaiting_agent") {
      return problem("ask.not_your_turn", ask.kind === "briefing" ? "The agent is answering; meanwhile you may only dismiss the briefing." : "The agent is answering.");
    }
    return problem("reply.wrong_kind", `A ${ask.kind} takes ${OUTCOMES_BY_KIND[ask.kind].join(", ")}.`);
  }
  if (reply.outcome === "answered" && ask.kind === "question") return checkAnswered(ask.prompt, reply);
  if (reply.outcome === "responded" && ask.kind === "briefing") return checkResponded(ask, reply);
  if (reply.outcome === "approved" || reply.outcome === "changes_requested") {
    if (ask.kind !== "review") return problem("reply.wrong_kind");
    const refused = checkComments(ask.prompt.content, reply.comments);
    if (refused) return refused;
  }
  if (reply.outcome === "changes_requested" && !hasWords(reply.feedback) && !reply.comments?.length) {
    return problem("reply.empty", "Say what to change, overall or in a comment on a line.");
  }
  if (reply.outcome === "follow_up" && !hasWords(reply.question)) return problem("reply.empty", "Say what you are asking.");
  return null;
}

function checkAnswered(prompt: QuestionPrompt, reply: Answered): LoopbackProblem | null {
  if (reply.selected.length === 0 && !hasWords(reply.text)) return problem("reply.empty");
  const offered = new Set(prompt.options.map((choice) => choice.label));
  const picked = new Set<string>();
  for (const label of reply.selected) {
    if (!offered.has(label)) return problem("reply.unknown_choice", `"${label}" is not one of them.`);
    if (picked.has(label)) return problem("reply.duplicate_choice", `"${label}" is picked twice.`);
    picked.add(label);
  }
  if (picked.size > 1 && !prompt.multiple) return problem("reply.one_choice");
  return null;
}

function checkResponded(ask: BriefingAsk, reply: Responded): LoopbackProblem | null {
  const known = new Set(allPoints(ask).map((point) => point.id));
  const open = new Set(openPoints(ask).map((point) => point.id));
  const named = new Set<string>();
  for (const { point, text, resolved } of reply.points) {
    if (!known.has(point)) return problem("reply.unknown_point", `There is no point ${point}.`);
    if (named.has(point)) return problem("reply.point_twice", `Point ${point} is named twice.`);
    named.add(point);
    if (!open.has(point)) return problem("reply.point_resolved", `Point ${point} is resolved.`);
    if (!hasWords(text) && resolved !== true) return problem("reply.point_empty", `Point ${point} has neither.`);
  }
  // Read the points as they would stand with this reply in the thread.
  const after: BriefingAsk = { ...ask, thread: [...ask.thread, { author: "human", reply, at: ask.updatedAt }] };
  if (openPoints(after).length > 0 && leftToAnswer(after, reply).length === 0) return problem("reply.nothing_to_answer");
  return null;
}
