import { describe, expect, test } from "bun:test";
import type { Ask, FollowUpInput } from "../generated/types.ts";
import type { ProblemCode } from "../problems.ts";
import { applyFollowUpAnswer, checkFollowUpAnswer } from "./follow-up-answer.ts";
import { aBriefing, agentAnswersFollowUp, aQuestion, aReview, at, codeOf, codeThrownBy, personReplies, personResponds } from "../testing/sample-asks.ts";

const questionAskedBack = personReplies(aQuestion(), { outcome: "follow_up", question: "Which Friday?" });
const reviewAskedBack = personReplies(aReview(), { outcome: "follow_up", question: "Why 1.2?" });
const reply = (ask: Ask, answer = "The 13th."): FollowUpInput => ({ askId: ask.id, answer });

describe("checkFollowUpAnswer", () => {
  const cases: [string, Ask, FollowUpInput, ProblemCode | null][] = [
    ["the agent answers what the person asked back on a question", questionAskedBack, reply(questionAskedBack), null],
    ["the agent answers what the person asked back on a review", reviewAskedBack, reply(reviewAskedBack), null],
    ["the agent answers a second follow-up after the first", personReplies(agentAnswersFollowUp(questionAskedBack), { outcome: "follow_up", question: "Morning?" }, 3), reply(questionAskedBack), null],
    ["a closed ask takes no answer", personReplies(aQuestion(), { outcome: "dismissed" }), reply(questionAskedBack), "ask.closed"],
    ["a question nobody asked back about is the person's move", aQuestion(), reply(questionAskedBack), "ask.not_your_turn"],
    ["a follow-up is answered once", agentAnswersFollowUp(questionAskedBack), reply(questionAskedBack), "ask.not_your_turn"],
    ["a briefing's points are not answered as a follow-up", personResponds(aBriefing(), [{ point: "2", text: "Which?" }]), reply(aBriefing()), "answer.no_follow_up"],
    ["an answer larger than 256 KiB is refused", questionAskedBack, reply(questionAskedBack, "x".repeat(256 * 1024)), "input.too_large"],
  ];
  for (const [behaviour, ask, input, refusal] of cases) test(behaviour, () => expect(codeOf(checkFollowUpAnswer(ask, input))).toBe(refusal));

  test("an agent answering a briefing as a follow-up is told what to call", () => {
    expect(checkFollowUpAnswer(personResponds(aBriefing(), [{ point: "2", text: "Which?" }]), reply(aBriefing()))?.message).toContain("answer_briefing");
  });
});

describe("applyFollowUpAnswer", () => {
  test("the answer joins the thread and the move goes back to the person", () => {
    const content = [{ type: "markdown" as const, text: "The calendar: …" }];
    const next = applyFollowUpAnswer(questionAskedBack, { askId: "q1", answer: "The 13th.", content }, at(7));
    expect(next.thread.at(-1)).toStrictEqual({ author: "agent", answer: "The 13th.", content, at: at(7) });
    expect(next.status).toBe("awaiting_human");
    expect(next.updatedAt).toBe(at(7));
    expect(next.closedAt).toBeUndefined();
  });

  test("an answer without content records none", () => {
    expect(applyFollowUpAnswer(reviewAskedBack, reply(reviewAskedBack), at(7)).thread.at(-1)).toStrictEqual({ author: "agent", answer: "The 13th.", at: at(7) });
  });

  test("the person can then answer the question", () => {
    const next = applyFollowUpAnswer(questionAskedBack, reply(questionAskedBack), at(7));
    expect(personReplies(next, { outcome: "answered", selected: ["Yes"] }, 8).status).toBe("closed");
  });

  test("the ask given is left untouched", () => {
    const copy = structuredClone(questionAskedBack);
    applyFollowUpAnswer(questionAskedBack, reply(questionAskedBack), at(7));
    expect(questionAskedBack).toStrictEqual(copy);
  });

  test("an answer checkFollowUpAnswer refuses is thrown, not applied", () => {
    expect(codeThrownBy(() => applyFollowUpAnswer(aQuestion(), reply(aQuestion()), at(7)))).toBe("ask.not_your_turn");
  });
});
