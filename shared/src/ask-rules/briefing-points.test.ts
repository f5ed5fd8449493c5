import { describe, expect, test } from "bun:test";
import type { Ask, Point } from "../generated/types.ts";
import { allPoints, openPoints, parentPoint, pointAndAncestors, pointDepth, pointsAwaitingAnswer, resolvedPoints, subPoints, topPoint } from "./briefing-points.ts";
import { aBriefing, agentAnswers, aQuestion, personReplies, personResponds } from "../testing/sample-asks.ts";

const ids = (points: Point[]) => points.map((point) => point.id);

const fresh = aBriefing();
const askedOn2And3 = personResponds(fresh, [{ point: "2", text: "Which index?" }, { point: "3", text: "How many queries?" }], 1);
const broken = agentAnswers(askedOn2And3, [
  { point: "2", answer: "On user_id.", points: [{ title: "A composite index" }, { title: "A partial index" }] },
  { point: "3", answer: "One per row.", points: [{ title: "Batch them" }] },
], 2);
const brokenDeeper = agentAnswers(personResponds(broken, [{ point: "2.1", text: "Which columns?" }], 3), [
  { point: "2.1", answer: "user_id, then created_at.", points: [{ title: "user_id first" }] },
], 4);

describe("point ids", () => {
  const cases: [string, number, string | undefined][] = [
    ["3", 1, undefined],
    ["3.1", 2, "3"],
    ["3.1.2", 3, "3.1"],
    ["12.10", 2, "12"],
  ];
  for (const [id, depth, parent] of cases) {
    test(`${id} is ${depth} level${depth > 1 ? "s" : ""} deep, beneath ${parent ?? "nothing"}`, () => {
      expect(pointDepth(id)).toBe(depth);
      expect(parentPoint(id)).toBe(parent);
    });
  }

  test("a point's chain runs from itself up to its level-one point", () => {
    expect(pointAndAncestors("3.1.2")).toEqual(["3.1.2", "3.1", "3"]);
    expect(pointAndAncestors("12")).toEqual(["12"]);
    expect([topPoint("3.1.2"), topPoint("12.10"), topPoint("4")]).toEqual(["3", "12", "4"]);
  });
});

describe("allPoints", () => {
  test("a new briefing's points are its prompt's, through every section", () => expect(ids(allPoints(fresh))).toEqual(["1", "2", "3", "4"]));

  test("sub-points are read beneath the point they break, however deep", () => {
    expect(ids(allPoints(brokenDeeper))).toEqual(["1", "2", "2.1", "2.1.1", "2.2", "3", "3.1", "4"]);
  });

  test("sub-points carry what the agent gave them", () => {
    expect(allPoints(broken).find((point) => point.id === "2.2")).toStrictEqual({ id: "2.2", title: "A partial index" });
  });

  test("a question or review has no points", () => expect(allPoints(aQuestion())).toEqual([]));
});

describe("subPoints", () => {
  const cases: [string, Ask, string, string[]][] = [
    ["a point broken into sub-points has them beneath it", broken, "2", ["2.1", "2.2"]],
    ["only the level directly beneath is listed", brokenDeeper, "2", ["2.1", "2.2"]],
    ["a sub-point's own sub-points are beneath it", brokenDeeper, "2.1", ["2.1.1"]],
    ["a point never broken has none", brokenDeeper, "4", []],
    ["a question has none", aQuestion(), "1", []],
  ];
  for (const [behaviour, ask, id, expected] of cases) test(behaviour, () => expect(ids(subPoints(ask, id))).toEqual(expected));
});

describe("resolvedPoints and openPoints", () => {
  const resolving2 = personResponds(brokenDeeper, [{ point: "2", resolved: true }, { point: "3.1", text: "How big a batch?" }], 5);
  const cases: [string, Ask, string[], string[]][] = [
    ["every point of a new briefing is open", fresh, [], ["1", "2", "3", "4"]],
    ["writing on a point leaves it open", askedOn2And3, [], ["1", "2", "3", "4"]],
    ["resolving a point resolves everything beneath it", resolving2, ["2", "2.1", "2.1.1", "2.2"], ["1", "3", "3.1", "4"]],
    ["resolving a sub-point leaves its parent open", personResponds(brokenDeeper, [{ point: "2.2", resolved: true }, { point: "1", text: "Why cold?" }], 5), ["2.2"], ["1", "2", "2.1", "2.1.1", "3", "3.1", "4"]],
    ["a question has no points either way", aQuestion(), [], []],
  ];
  for (const [behaviour, ask, resolved, open] of cases) {
    test(behaviour, () => {
      expect(ids(resolvedPoints(ask))).toEqual(resolved);
      expect(ids(openPoints(ask))).toEqual(open);
    });
  }
});

describe("pointsAwaitingAnswer", () => {
  const cases: [string, Ask, string[]][] = [
    ["the points written on and left open await the agent, in reading order", personResponds(fresh, [{ point: "3", text: "How many?" }, { point: "2", text: "Which?" }]), ["2", "3"]],
    ["a point resolved with a closing remark awaits nothing", personResponds(fresh, [{ point: "1", text: "Known.", resolved: true }, { point: "2", text: "Which?" }]), ["2"]],
    ["a point only resolved awaits nothing", personResponds(fresh, [{ point: "1", resolved: true }, { point: "2", text: "Which?" }]), ["2"]],
    ["a sub-point written on beneath a point resolved in the same reply awaits nothing", personResponds(brokenDeeper, [{ point: "2", resolved: true }, { point: "2.2", text: "Shame." }, { point: "4", text: "When?" }], 5), ["4"]],
    ["only the latest reply counts, not points written on in earlier rounds", personResponds(broken, [{ point: "3.1", text: "How big?" }], 3), ["3.1"]],
    ["nothing awaits the agent once it has answered", broken, []],
    ["nothing awaits the agent on a new briefing", fresh, []],
    ["nothing awaits the agent on a dismissed briefing", personReplies(askedOn2And3, { outcome: "dismissed" }, 2), []],
    ["nothing awaits the agent on a briefing resolved in full", personResponds(fresh, ["1", "2", "3", "4"].map((point) => ({ point, resolved: true }))), []],
    ["a question has no points to answer", personReplies(aQuestion(), { outcome: "follow_up", question: "Which Friday?" }), []],
  ];
  for (const [behaviour, ask, expected] of cases) test(behaviour, () => expect(ids(pointsAwaitingAnswer(ask))).toEqual(expected));
});
