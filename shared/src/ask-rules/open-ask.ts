import type { Actor, ApprovalInput, Ask, AskCommon, AskKind, BriefingInput, QuestionInput, ReviewInput } from "../generated/types.ts";
import type { LoopbackProblem } from "../problems.ts";
import { checkBriefingInput, numberBriefing } from "./number-briefing.ts";
import { checkSize } from "./size.ts";
import { readTouches } from "./touches.ts";

export interface AskInputs {
  question: QuestionInput;
  review: ReviewInput;
  briefing: BriefingInput;
  approval: ApprovalInput;
}

export type AskOfKind<K extends AskKind> = Extract<Ask, { kind: K }>;

/** What the relay knows of an ask beyond what the agent sent. */
export interface OpenMeta {
  id: string;
  at: string;
  client?: string;
  raisedBy?: Actor;
}

type Opening = { [K in AskKind]: { kind: K; input: AskInputs[K] } }[AskKind];

/** Why an agent's input cannot open an ask, as far as the input alone tells; uploads and `revises` are the relay's to check. */
export function checkOpen<K extends AskKind>(kind: K, input: AskInputs[K]): LoopbackProblem | null {
  const opening = { kind, input } as Opening;
  return checkSize(input) ?? (opening.kind === "briefing" ? checkBriefingInput(opening.input) : null);
}

/** A new ask, the person's move. Throws what `checkOpen` refuses. */
export function openAsk<K extends AskKind>(kind: K, input: AskInputs[K], meta: OpenMeta): AskOfKind<K> {
  const refused = checkOpen(kind, input);
  if (refused) throw refused;
  return open({ kind, input } as Opening, meta) as AskOfKind<K>;
}

function open(opening: Opening, { id, at, client, raisedBy }: OpenMeta): Ask {
  const common: AskCommon = {
    id,
    status: "awaiting_human",
    waiting: false,
    project: opening.input.project,
    ...(client !== undefined && { client }),
    ...(raisedBy !== undefined && { raisedBy }),
    thread: [],
    createdAt: at,
    updatedAt: at,
  };
  switch (opening.kind) {
    case "question": {
      const { question, options = [], multiple = false, context } = opening.input;
      return { kind: "question", prompt: { question, options, multiple, ...(context !== undefined && { context }) }, ...common };
    }
    case "review": {
      const { title, content, summary, revises } = opening.input;
      return { kind: "review", prompt: { title, content, ...(summary !== undefined && { summary }) }, ...(revises !== undefined && { revises }), ...common };
    }
    case "briefing":
      return { kind: "briefing", prompt: numberBriefing(opening.input), ...common };
    case "approval": {
      const { tool_name: tool, input, reason, cwd, touches } = opening.input;
      const prompt = { tool, input, touches: touches ?? readTouches(tool, input, cwd), ...(reason !== undefined && { reason }) };
      return { kind: "approval", prompt, ...common };
    }
  }
}
