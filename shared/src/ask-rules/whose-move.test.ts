import { describe, expect, test } from "bun:test";
import type { Ask } from "../generated/types.ts";
import type { ProblemCode } from "../problems.ts";
import { aQuestion, codeOf, personReplies } from "../testing/sample-asks.ts";
import { checkMove, type Side, whoseMove } from "./whose-move.ts";

const open = aQuestion();
const askedBack = personReplies(aQuestion(), { outcome: "follow_up", question: "Which Friday?" });
const closed = personReplies(aQuestion(), { outcome: "dismissed" });

describe("whoseMove", () => {
  const cases: [string, Ask, ReturnType<typeof whoseMove>][] = [
    ["an ask awaiting the person is the person's move", open, "human"],
    ["an ask awaiting the agent is the agent's move", askedBack, "agent"],
    ["a closed ask is nobody's move", closed, "nobody"],
  ];
  for (const [behaviour, ask, move] of cases) test(behaviour, () => expect(whoseMove(ask)).toBe(move));
});

describe("checkMove", () => {
  const cases: [string, Ask, Side, ProblemCode | null][] = [
    ["the person may move on their move", open, "human", null],
    ["the agent may move on its move", askedBack, "agent", null],
    ["the agent may not move on the person's move", open, "agent", "ask.not_your_turn"],
    ["the person may not move on the agent's move", askedBack, "human", "ask.not_your_turn"],
    ["the person may not move on a closed ask", closed, "human", "ask.closed"],
    ["the agent may not move on a closed ask", closed, "agent", "ask.closed"],
  ];
  for (const [behaviour, ask, side, refusal] of cases) test(behaviour, () => expect(codeOf(checkMove(ask, side))).toBe(refusal));
});
