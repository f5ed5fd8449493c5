import { describe, expect, test } from "bun:test";
import type { Ask, BriefingAsk, PointAnswer } from "../generated/types.ts";
import type { ProblemCode } from "../problems.ts";
import { applyBriefingAnswer, checkBriefingAnswer } from "./briefing-answer.ts";
import { allPoints } from "./briefing-points.ts";
import { aBriefing, agentAnswers, aQuestion, at, codeOf, codeThrownBy, personReplies, personResponds } from "../testing/sample-asks.ts";

const answersOn = (ask: Ask, answers: PointAnswer[]) => checkBriefingAnswer(ask, { askId: ask.id, answers });
const answer = (point: string, titles: string[] = []): PointAnswer => ({ point, answer: `On ${point}.`, ...(titles.length > 0 && { points: titles.map((title) => ({ title })) }) });

const askedOn2 = personResponds(aBriefing(), [{ point: "1", resolved: true }, { point: "2", text: "Which index?" }], 1);
const askedOn2And3 = personResponds(aBriefing(), [{ point: "2", text: "Which index?" }, { point: "3", text: "How many?" }], 1);
// 2 broken into 2.1 and 2.2, 2.1 into 2.1.1; now the person asks about 2.1.1 and 2.2.
const deep = agentAnswers(personResponds(agentAnswers(askedOn2, [answer("2", ["Composite", "Partial"])], 2), [{ point: "2.1", text: "Columns?" }], 3), [answer("2.1", ["user_id first"])], 4);
const askedDeep = personResponds(deep, [{ point: "2.1.1", text: "Why first?" }, { point: "2.2", text: "And this?" }], 5);
// The person resolves 2 and everything beneath it, and asks about 3.
const resolved2 = personResponds(deep, [{ point: "2", resolved: true }, { point: "3", text: "How many?" }], 5);

describe("checkBriefingAnswer", () => {
  const cases: [string, Ask, PointAnswer[], ProblemCode | null][] = [
    ["the agent answers the point the person wrote on", askedOn2, [answer("2")], null],
    ["the agent answers every point the person wrote on", askedOn2And3, [answer("3"), answer("2")], null],
    ["the agent may also answer an open point the person did not write on", askedOn2, [answer("2"), answer("4")], null],
    ["the agent may break a point into sub-points", askedOn2, [answer("2", ["Composite", "Partial"])], null],
    ["the agent may break a second-level point into sub-points", askedDeep, [answer("2.1.1"), answer("2.2", ["Small", "Large"])], null],
    ["the agent may answer a third-level point without breaking it", askedDeep, [answer("2.1.1"), answer("2.2")], null],
    ["an empty list of sub-points on a third-level point breaks nothing", askedDeep, [{ ...answer("2.1.1"), points: [] }, answer("2.2")], null],
    ["a question takes no answers on points", personReplies(aQuestion(), { outcome: "follow_up", question: "Why?" }), [answer("1")], "answer.wrong_kind"],
    ["a closed briefing takes no answers", personReplies(askedOn2, { outcome: "dismissed" }, 2), [answer("2")], "ask.closed"],
    ["a new briefing is the person's move", aBriefing(), [answer("1")], "ask.not_your_turn"],
    ["a briefing already answered is the person's move", agentAnswers(askedOn2, [answer("2")]), [answer("2")], "ask.not_your_turn"],
    ["an answered point must exist", askedOn2, [answer("2"), answer("5")], "answer.unknown_point"],
    ["an answered sub-point must exist", askedOn2, [answer("2.1")], "answer.unknown_point"],
    ["a point is answered once", askedOn2, [answer("2"), answer("2")], "answer.point_twice"],
    ["a resolved point takes no answer", askedOn2, [answer("2"), answer("1")], "answer.point_resolved"],
    ["a point beneath a resolved point takes no answer", resolved2, [answer("3"), answer("2.1")], "answer.point_resolved"],
    ["a resolved point takes no new sub-points", resolved2, [answer("3"), answer("2", ["More"])], "answer.point_resolved"],
    ["a third-level point cannot be broken into sub-points", askedDeep, [answer("2.1.1", ["Too deep"]), answer("2.2")], "answer.too_deep"],
    ["every point the person wrote on and left open must be answered", askedOn2And3, [answer("2")], "answer.missing_point"],
    ["answering another point does not stand in for one written on", askedOn2, [answer("4")], "answer.missing_point"],
    ["answers larger than 256 KiB are refused", askedOn2, [{ point: "2", answer: "x".repeat(256 * 1024) }], "input.too_large"],
  ];
  for (const [behaviour, ask, answers, refusal] of cases) test(behaviour, () => expect(codeOf(answersOn(ask, answers))).toBe(refusal));

  test("a missing answer is named", () => expect(answersOn(askedDeep, [answer("2.1.1")])?.message).toContain("Still to answer: 2.2."));
});

describe("applyBriefingAnswer", () => {
  test("each point answered gets its own entry, in the order given, and the move goes back to the person", () => {
    const content = [{ type: "code" as const, code: "SELECT count(*) FROM rows" }];
    const next = applyBriefingAnswer(askedOn2And3, { askId: "b1", answers: [{ point: "3", answer: "200.", content }, { point: "2", answer: "On user_id." }] }, at(7));
    expect(next.thread.slice(askedOn2And3.thread.length)).toStrictEqual([
      { author: "agent", answer: "200.", content, point: "3", at: at(7) },
      { author: "agent", answer: "On user_id.", point: "2", at: at(7) },
    ]);
    expect(next.status).toBe("awaiting_human");
    expect(next.updatedAt).toBe(at(7));
    expect(next.closedAt).toBeUndefined();
  });

  test("sub-points are numbered beneath their point", () => {
    const next = applyBriefingAnswer(askedOn2, { askId: "b1", answers: [{ point: "2", answer: "Two ways.", points: [{ title: "Composite", detail: "Both columns." }, { title: "Partial" }] }] }, at(7));
    expect(next.thread.at(-1)).toStrictEqual({
      author: "agent",
      answer: "Two ways.",
      point: "2",
      points: [{ id: "2.1", title: "Composite", detail: "Both columns." }, { id: "2.2", title: "Partial" }],
      at: at(7),
    });
  });

  test("a point broken again carries on numbering from its earlier sub-points", () => {
    const again = personResponds(agentAnswers(askedOn2, [answer("2", ["Composite", "Partial"])], 2), [{ point: "2", text: "Any other way?" }], 3);
    const next = applyBriefingAnswer(again, { askId: "b1", answers: [answer("2", ["Covering"])] }, at(4));
    expect(allPoints(next).map((point) => point.id)).toEqual(["1", "2", "2.1", "2.2", "2.3", "3", "4"]);
  });

  test("a sub-point broken in turn numbers its own sub-points beneath it", () => {
    expect(allPoints(deep).map((point) => point.id)).toEqual(["1", "2", "2.1", "2.1.1", "2.2", "3", "4"]);
  });

  test("a point past nine is numbered by its value, not its spelling", () => {
    const many = Array.from({ length: 10 }, (_, index) => `Way ${index + 1}`);
    const again = personResponds(agentAnswers(askedOn2, [answer("2", many)], 2), [{ point: "2", text: "More?" }], 3);
    const next = applyBriefingAnswer(again, { askId: "b1", answers: [answer("2", ["Way 11"])] }, at(4));
    expect(next.thread.at(-1)).toMatchObject({ points: [{ id: "2.11", title: "Way 11" }] });
  });

  test("the ask given is left untouched", () => {
    const copy = structuredClone(askedOn2);
    applyBriefingAnswer(askedOn2, { askId: "b1", answers: [answer("2", ["Composite"])] }, at(7));
    expect(askedOn2).toStrictEqual(copy);
  });

  test("answers checkBriefingAnswer refuses are thrown, not applied", () => {
    expect(codeThrownBy(() => applyBriefingAnswer(askedOn2And3, { askId: "b1", answers: [answer("2")] }, at(7)))).toBe("answer.missing_point");
  });

  test("the person can reply on the points the answer added", () => {
    const next: BriefingAsk = applyBriefingAnswer(askedOn2, { askId: "b1", answers: [answer("2", ["Composite"])] }, at(7));
    expect(personResponds(next, [{ point: "2.1", text: "Which columns?" }], 8).status).toBe("awaiting_agent");
  });
});
