import { describe, expect, test } from "bun:test";
import type { Ask, Reply } from "../generated/types.ts";
import { applyReply } from "./apply-reply.ts";
import { aBriefing, agentAnswers, aQuestion, aReview, at, codeThrownBy, personResponds } from "../testing/sample-asks.ts";

const person = { id: "u_ada", name: "Ada" };

describe("applyReply", () => {
  const handsBack: [string, Ask, Reply][] = [
    ["a follow-up on a question hands the move to the agent", aQuestion(), { outcome: "follow_up", question: "Which Friday?" }],
    ["a follow-up on a review hands the move to the agent", aReview(), { outcome: "follow_up", question: "Why 1.2?" }],
    ["a briefing reply that leaves a point written on open hands the move to the agent", aBriefing(), { outcome: "responded", points: [{ point: "2", text: "Which?" }] }],
    ["a briefing reply that resolves some points and writes on another hands the move to the agent", aBriefing(), { outcome: "responded", points: [{ point: "1", resolved: true }, { point: "2", text: "Which?" }] }],
  ];
  for (const [behaviour, ask, reply] of handsBack) {
    test(behaviour, () => {
      const next = applyReply(ask, reply, person, at(5));
      expect(next.status).toBe("awaiting_agent");
      expect(next.closedAt).toBeUndefined();
      expect(next.updatedAt).toBe(at(5));
    });
  }

  const closes: [string, Ask, Reply][] = [
    ["an answer closes a question", aQuestion(), { outcome: "answered", selected: ["Yes"] }],
    ["dismissing closes a question", aQuestion(), { outcome: "dismissed" }],
    ["approval closes a review", aReview(), { outcome: "approved" }],
    ["a change request closes a review", aReview(), { outcome: "changes_requested", feedback: "Shorter." }],
    ["dismissing closes a review", aReview(), { outcome: "dismissed" }],
    ["resolving every point closes a briefing", aBriefing(), { outcome: "responded", points: ["1", "2", "3", "4"].map((point) => ({ point, resolved: true })) }],
    ["dismissing closes a briefing", aBriefing(), { outcome: "dismissed" }],
    ["dismissing closes a briefing during the agent's move", personResponds(aBriefing(), [{ point: "2", text: "Which?" }]), { outcome: "dismissed" }],
    [
      "resolving the last open points closes a briefing with sub-points",
      agentAnswers(personResponds(aBriefing(), [{ point: "1", resolved: true }, { point: "2", text: "Which?" }]), [{ point: "2", answer: "Two options.", points: [{ title: "Composite" }, { title: "Partial" }] }]),
      { outcome: "responded", points: ["2", "3", "4"].map((point) => ({ point, resolved: true })) },
    ],
  ];
  for (const [behaviour, ask, reply] of closes) {
    test(behaviour, () => {
      const next = applyReply(ask, reply, person, at(5));
      expect(next.status).toBe("closed");
      expect(next.closedAt).toBe(at(5));
      expect(next.updatedAt).toBe(at(5));
    });
  }

  test("the reply is added to the end of the thread with who gave it and when", () => {
    const ask = personResponds(aBriefing(), [{ point: "2", text: "Which?" }], 1);
    const next = applyReply(ask, { outcome: "dismissed" }, person, at(5));
    expect(next.thread).toEqual([...ask.thread, { author: "human", reply: { outcome: "dismissed" }, by: person, at: at(5) }]);
  });

  test("a reply from someone the deployment does not know is recorded without a name", () => {
    const next = applyReply(aQuestion(), { outcome: "dismissed" }, undefined, at(5));
    expect(next.thread.at(-1)).toStrictEqual({ author: "human", reply: { outcome: "dismissed" }, at: at(5) });
  });

  test("everything else about the ask stays as it was", () => {
    const ask = aReview({ revises: "r0" });
    const next = applyReply(ask, { outcome: "approved" }, person, at(5));
    const unchanged = { ...next, thread: ask.thread, status: ask.status, updatedAt: ask.updatedAt };
    delete unchanged.closedAt;
    expect(unchanged).toStrictEqual(ask);
  });

  test("the ask given is left untouched", () => {
    const ask = aBriefing();
    const copy = structuredClone(ask);
    applyReply(ask, { outcome: "responded", points: [{ point: "1", resolved: true }, { point: "2", text: "Which?" }] }, person, at(5));
    expect(ask).toStrictEqual(copy);
  });

  test("a reply checkReply refuses is thrown, not applied", () => {
    expect(codeThrownBy(() => applyReply(aReview(), { outcome: "answered", selected: ["Yes"] }, person, at(5)))).toBe("reply.wrong_kind");
  });
});
