import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Ask } from "@loopback/shared/generated/types";
import { structured } from "../support/agent.ts";
import { askWhen, scene, type Scene } from "../support/scene.ts";
import { briefing, question, review } from "./open-ask.ts";

let s: Scene;
beforeAll(async () => {
  s = await scene();
});
afterAll(() => s.dispose());

async function refused(askId: string, reply: unknown, status: number, code: string) {
  const res = await s.person.api("POST", `/asks/${askId}/reply`, { body: reply });
  expect([JSON.stringify(reply), res.status, res.body.code]).toEqual([JSON.stringify(reply), status, code]);
}

test("each outcome fits only its kind of ask", async () => {
  const q = await question(s.person, s.agent);
  await refused(q.ask.id, { outcome: "approved" }, 422, "reply.wrong_kind");
  await refused(q.ask.id, { outcome: "changes_requested", feedback: "Redo it." }, 422, "reply.wrong_kind");
  await refused(q.ask.id, { outcome: "responded", points: [{ point: "1", resolved: true }] }, 422, "reply.wrong_kind");

  const r = await review(s.person, s.agent);
  await refused(r.ask.id, { outcome: "answered", selected: [], text: "Fine." }, 422, "reply.wrong_kind");
  await refused(r.ask.id, { outcome: "responded", points: [{ point: "1", resolved: true }] }, 422, "reply.wrong_kind");

  const b = await briefing(s.person, s.agent);
  await refused(b.ask.id, { outcome: "answered", selected: [], text: "Fine." }, 422, "reply.wrong_kind");
  await refused(b.ask.id, { outcome: "approved" }, 422, "reply.wrong_kind");
  await refused(b.ask.id, { outcome: "changes_requested", feedback: "Redo it." }, 422, "reply.wrong_kind");
  await refused(b.ask.id, { outcome: "follow_up", question: "Why?" }, 422, "reply.wrong_kind");

  for (const { ask, call } of [q, r, b]) {
    expect((await s.person.api("GET", `/asks/${ask.id}`)).body.thread).toEqual([]);
    expect((await s.person.reply(ask.id, { outcome: "dismissed" })).status).toBe(200);
    expect(structured(await call).reply).toEqual({ outcome: "dismissed" });
  }
});

test("an answer needs a choice or words of the person's own", async () => {
  const q = await question(s.person, s.agent);
  await refused(q.ask.id, { outcome: "answered", selected: [] }, 422, "reply.empty");
  await refused(q.ask.id, { outcome: "answered", selected: [], text: "  \n " }, 422, "reply.empty");
  const res = await s.person.reply(q.ask.id, { outcome: "answered", selected: [], text: "Neither, use D." });
  expect(res.status).toBe(200);
  expect(structured(await q.call).reply).toEqual({ outcome: "answered", selected: [], text: "Neither, use D." });

  const noChoices = await question(s.person, s.agent, { question: "Go ahead?", options: undefined });
  expect(noChoices.ask.kind === "question" && noChoices.ask.prompt.options).toEqual([]);
  expect((await s.person.reply(noChoices.ask.id, { outcome: "answered", selected: [], text: "Yes." })).status).toBe(200);
  await noChoices.call;
});

test("choices are among those offered, each picked once, and only one unless several are allowed", async () => {
  const single = await question(s.person, s.agent);
  await refused(single.ask.id, { outcome: "answered", selected: ["D"] }, 422, "reply.unknown_choice");
  await refused(single.ask.id, { outcome: "answered", selected: ["a"] }, 422, "reply.unknown_choice");
  await refused(single.ask.id, { outcome: "answered", selected: ["A", "A"] }, 422, "reply.duplicate_choice");
  await refused(single.ask.id, { outcome: "answered", selected: ["A", "B"] }, 422, "reply.one_choice");
  expect((await s.person.reply(single.ask.id, { outcome: "answered", selected: ["B"], text: "B, mostly." })).status).toBe(200);
  expect(structured(await single.call).reply).toEqual({ outcome: "answered", selected: ["B"], text: "B, mostly." });

  const several = await question(s.person, s.agent, { multiple: true });
  await refused(several.ask.id, { outcome: "answered", selected: ["A", "Z"] }, 422, "reply.unknown_choice");
  expect((await s.person.reply(several.ask.id, { outcome: "answered", selected: ["A", "C"] })).status).toBe(200);
  expect(structured(await several.call).reply).toEqual({ outcome: "answered", selected: ["A", "C"] });
});

test("a reply is committed with who gave it and when", async () => {
  const { ask, call } = await question(s.person, s.agent);
  const before = Date.now();
  const res = await s.person.reply(ask.id, { outcome: "answered", selected: ["A"] });
  const after = Date.now();
  expect(res.status).toBe(200);
  const me = (await s.person.api("GET", "/whoami")).body.actor;
  const entry = res.body.thread.at(-1)!;
  expect(entry).toMatchObject({ author: "human", reply: { outcome: "answered", selected: ["A"] }, by: me });
  const at = Date.parse(entry.at);
  expect(at).toBeGreaterThanOrEqual(before - 1);
  expect(at).toBeLessThanOrEqual(after + 1);
  expect(res.body.status).toBe("closed");
  expect(res.body.closedAt).toBe(entry.at);

  const stored = (await s.person.api<Ask>("GET", `/asks/${ask.id}`)).body;
  expect(stored.thread).toEqual(res.body.thread);
  expect(stored.status).toBe("closed");
  expect(structured(await call)).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: ["A"] } });
});

test("an agent's token cannot reply for its person", async () => {
  const { ask, call } = await question(s.person, s.agent);
  const res = await s.person.api("POST", `/asks/${ask.id}/reply`, { token: s.agentToken, body: { outcome: "answered", selected: ["A"] } });
  expect([res.status, res.body.code]).toEqual([401, "auth.person_required"]);
  expect((await s.person.api("GET", `/asks/${ask.id}`)).body.status).toBe("awaiting_human");
  await s.person.reply(ask.id, { outcome: "dismissed" });
  await call;
});

test("a follow-up hands the move to the agent, and the person waits for its answer", async () => {
  const r = await review(s.person, s.agent);
  const asked = await s.person.reply(r.ask.id, { outcome: "follow_up", question: "Why this order?" });
  expect(asked.status).toBe(200);
  expect(asked.body.status).toBe("awaiting_agent");
  expect(structured(await r.call).reply).toEqual({ outcome: "follow_up", question: "Why this order?" });

  await refused(r.ask.id, { outcome: "approved" }, 409, "ask.not_your_turn");
  await refused(r.ask.id, { outcome: "follow_up", question: "And?" }, 409, "ask.not_your_turn");
  await refused(r.ask.id, { outcome: "dismissed" }, 409, "ask.not_your_turn");

  const answering = s.agent.call("answer_follow_up", { askId: r.ask.id, answer: "Dependencies first." });
  const back = await askWhen(s.person, r.ask.id, (a) => a.status === "awaiting_human", "it awaits the person");
  expect(back.thread.at(-1)).toMatchObject({ author: "agent", answer: "Dependencies first." });
  expect((await s.person.reply(r.ask.id, { outcome: "approved", note: "Thanks." })).body.status).toBe("closed");
  expect(structured(await answering).reply).toEqual({ outcome: "approved", note: "Thanks." });
});

test("a review closes on approval or on changes requested, which need feedback", async () => {
  const r = await review(s.person, s.agent);
  await refused(r.ask.id, { outcome: "changes_requested", feedback: " " }, 422, "reply.empty");
  await refused(r.ask.id, { outcome: "changes_requested", feedback: "" }, 422, "body.invalid");
  const res = await s.person.reply(r.ask.id, { outcome: "changes_requested", feedback: "Split it." });
  expect(res.body.status).toBe("closed");
  expect(structured(await r.call).reply).toEqual({ outcome: "changes_requested", feedback: "Split it." });

  const revised = await review(s.person, s.agent, { revises: r.ask.id });
  expect((revised.ask as any).revises).toBe(r.ask.id);
  expect((await s.person.reply(revised.ask.id, { outcome: "approved" })).body.status).toBe("closed");
  await revised.call;
});

test("nothing can be added to a closed ask", async () => {
  const q = await question(s.person, s.agent);
  await s.person.reply(q.ask.id, { outcome: "answered", selected: ["A"] });
  await q.call;
  for (const reply of [
    { outcome: "answered", selected: ["B"] },
    { outcome: "follow_up", question: "Wait, why?" },
    { outcome: "dismissed" },
    { outcome: "approved" },
    { outcome: "responded", points: [{ point: "1", resolved: true }] },
  ]) {
    await refused(q.ask.id, reply, 409, "ask.closed");
  }
  expect((await s.person.api("GET", `/asks/${q.ask.id}`)).body.thread).toHaveLength(1);
});

test("a briefing reply names points that exist, each once, with words or resolved", async () => {
  const b = await briefing(s.person, s.agent);
  expect(b.ask.kind === "briefing" && b.ask.prompt.sections.flatMap((section) => section.points.map((p) => p.id))).toEqual(["1", "2", "3"]);
  await refused(b.ask.id, { outcome: "responded", points: [{ point: "4", resolved: true }] }, 422, "reply.unknown_point");
  await refused(b.ask.id, { outcome: "responded", points: [{ point: "1.1", text: "Hm." }] }, 422, "reply.unknown_point");
  await refused(
    b.ask.id,
    { outcome: "responded", points: [{ point: "1", text: "Why?" }, { point: "1", resolved: true }] },
    422,
    "reply.point_twice",
  );
  await refused(b.ask.id, { outcome: "responded", points: [{ point: "1" }] }, 422, "reply.point_empty");
  await refused(b.ask.id, { outcome: "responded", points: [{ point: "1", resolved: false, text: " " }] }, 422, "reply.point_empty");
  await refused(b.ask.id, { outcome: "responded", points: [] }, 422, "body.invalid");
  // Resolving some points and writing on none leaves the agent nothing to answer.
  await refused(b.ask.id, { outcome: "responded", points: [{ point: "1", resolved: true }] }, 422, "reply.nothing_to_answer");

  const all = { outcome: "responded", points: ["1", "2", "3"].map((point) => ({ point, resolved: true })) };
  const res = await s.person.reply(b.ask.id, all);
  expect(res.body.status).toBe("closed");
  expect(structured(await b.call).reply).toEqual(all);
});

test("a briefing goes back and forth point by point, and may be dismissed while the agent writes", async () => {
  const b = await briefing(s.person, s.agent);
  const first = { outcome: "responded", points: [{ point: "1", text: "Why?" }, { point: "2", resolved: true }] };
  expect((await s.person.reply(b.ask.id, first)).body.status).toBe("awaiting_agent");
  expect(structured(await b.call).reply).toEqual(first);
  await refused(b.ask.id, { outcome: "responded", points: [{ point: "3", resolved: true }] }, 409, "ask.not_your_turn");

  const answering = s.agent.call("answer_briefing", { askId: b.ask.id, answers: [{ point: "1", answer: "Because of the cache." }] });
  await askWhen(s.person, b.ask.id, (a) => a.status === "awaiting_human", "it awaits the person");
  await refused(b.ask.id, { outcome: "responded", points: [{ point: "2", text: "Actually…" }] }, 422, "reply.point_resolved");
  const second = { outcome: "responded", points: [{ point: "1", text: "Which cache?" }] };
  expect((await s.person.reply(b.ask.id, second)).body.status).toBe("awaiting_agent");
  expect(structured(await answering).reply).toEqual(second);

  const dismissed = await s.person.reply(b.ask.id, { outcome: "dismissed" });
  expect(dismissed.status).toBe(200);
  expect(dismissed.body.status).toBe("closed");
  await refused(b.ask.id, { outcome: "dismissed" }, 409, "ask.closed");
  const late = await s.agent.call("answer_briefing", { askId: b.ask.id, answers: [{ point: "1", answer: "The CDN's." }] });
  expect(late.isError).toBe(true);
});

test("a review's reply with as many comments as the contract allows is taken; 256 KiB besides the comments is not", async () => {
  const r = await review(s.person, s.agent, { content: Array.from({ length: 100 }, (_, i) => ({ type: "markdown", text: `Part ${i}` })) });
  const comments = Array.from({ length: 100 }, (_, block) => ({ block, body: "é".repeat(20_000) }));
  const tooMuch = await s.person.api("POST", `/asks/${r.ask.id}/reply`, { body: { outcome: "changes_requested", feedback: "x".repeat(256 * 1024), comments } });
  expect([tooMuch.status, tooMuch.body.code]).toEqual([413, "input.too_large"]);
  const res = await s.person.api("POST", `/asks/${r.ask.id}/reply`, { body: { outcome: "changes_requested", comments } });
  expect(res.status).toBe(200);
  expect(structured(await r.call).reply.comments).toHaveLength(100);
});
