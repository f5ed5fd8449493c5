import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Ask, BriefingAsk } from "@loopback/shared/generated/types";
import { Agent, askWhen, briefingInput, expectRefusal, newProject, openedAsk, questionInput, readAsk, reviewInput, running, scene, toolReply, uploadPng, type Scene } from "./mcp-scene.ts";

let s: Scene;
beforeAll(async () => {
  s = await scene();
});
afterAll(() => s.dispose());

/** Starts a blocking call that opens an ask of a fresh project, and finds that ask. */
async function open(tool: string, input: (project: string) => Record<string, unknown>, agent = s.agent) {
  const project = newProject();
  const call = running(agent.call(tool, input(project)));
  const ask = await openedAsk(s.person, project, call);
  return { ask, call };
}

async function replies(askId: string, reply: unknown): Promise<Ask> {
  const res = await s.person.reply(askId, reply);
  expect(res.status).toBe(200);
  return res.body;
}

test("a question answered with a choice returns the choice, and the ask names the client, the person and the project", async () => {
  const { ask, call } = await open("ask_question", (p) => questionInput(p));
  const whoami = (await s.person.api("GET", "/whoami")).body;
  expect(ask).toMatchObject({
    kind: "question",
    status: "awaiting_human",
    client: "claude-code 2.1.0",
    raisedBy: { id: whoami.actor.id, name: "ada" },
    prompt: { question: "Which database should the cache use?", multiple: false, context: "The cache holds **rendered pages**." },
  });
  expect(ask.project).toStartWith("project-");
  await replies(ask.id, { outcome: "answered", selected: ["SQLite"] });
  expect(toolReply(await call)).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: ["SQLite"] } });
  expect((await readAsk(s.person, ask.id)).status).toBe("closed");
});

test("an ask raised through another person's agent token is raised by them, from their client", async () => {
  const bob = await Agent.connect(s.relay.url, await s.relay.token("bob", { agent: true }), "codex", "0.9");
  const { ask, call } = await open("ask_question", (p) => ({ question: "Ship it?", project: p }), bob);
  expect(ask.client).toBe("codex 0.9");
  expect(ask.raisedBy?.name).toBe("bob");
  await replies(ask.id, { outcome: "answered", selected: [], text: "Yes." });
  expect(toolReply(await call).reply).toEqual({ outcome: "answered", selected: [], text: "Yes." });
  await bob.close();
});

test("a question answered in the person's own words returns their words", async () => {
  const { ask, call } = await open("ask_question", (p) => ({ question: "What should the cache be called?", project: p }));
  expect(ask.kind === "question" && ask.prompt.options).toEqual([]);
  await replies(ask.id, { outcome: "answered", selected: [], text: "`pageCache`, please." });
  expect(toolReply(await call).reply).toEqual({ outcome: "answered", selected: [], text: "`pageCache`, please." });
});

test("a question that allows several choices returns every choice picked, with words alongside", async () => {
  const { ask, call } = await open("ask_question", (p) => questionInput(p, { multiple: true }));
  expect(ask.kind === "question" && ask.prompt.multiple).toBe(true);
  await replies(ask.id, { outcome: "answered", selected: ["SQLite", "Redis"], text: "SQLite first." });
  expect(toolReply(await call).reply).toEqual({ outcome: "answered", selected: ["SQLite", "Redis"], text: "SQLite first." });
});

test("a review with code, a diff and an uploaded image is approved with a note", async () => {
  const uploadId = await uploadPng(s.agent);
  const { ask, call } = await open("request_review", (p) => {
    const input = reviewInput(p);
    return { ...input, content: [...input.content, { type: "image", uploadId, caption: "Before and after" }] };
  });
  expect(ask.kind === "review" && ask.prompt.content.map((b) => b.type)).toEqual(["markdown", "code", "diff", "image"]);
  const image = await s.person.api("GET", `/files/${uploadId}`);
  expect(image.status).toBe(200);
  await replies(ask.id, { outcome: "approved", note: "Nice." });
  expect(toolReply(await call)).toEqual({ askId: ask.id, reply: { outcome: "approved", note: "Nice." } });
});

test("a review sent back with changes is revised by a new review that names it, and approved", async () => {
  const first = await open("request_review", (p) => reviewInput(p));
  await replies(first.ask.id, { outcome: "changes_requested", feedback: "Make the TTL configurable." });
  expect(toolReply(await first.call).reply).toEqual({ outcome: "changes_requested", feedback: "Make the TTL configurable." });
  expect((await readAsk(s.person, first.ask.id)).status).toBe("closed");

  const second = await open("request_review", (p) => reviewInput(p, { revises: first.ask.id, summary: "The TTL is configurable now." }));
  expect(second.ask).toMatchObject({ kind: "review", revises: first.ask.id, status: "awaiting_human" });
  await replies(second.ask.id, { outcome: "approved" });
  expect(toolReply(await second.call)).toEqual({ askId: second.ask.id, reply: { outcome: "approved" } });
});

test("a briefing goes back and forth, with sub-points three levels deep, until every point is resolved", async () => {
  const { ask, call } = await open("send_briefing", (p) => briefingInput(p));
  const askId = ask.id;
  expect((ask as BriefingAsk).prompt.sections.map((sec) => sec.points.map((p) => p.id))).toEqual([["1", "2"], ["3"]]);

  // Round 1: the person writes on 1 and 3, resolves 2.
  const round1 = { outcome: "responded", points: [{ point: "1", text: "Why per request?" }, { point: "2", resolved: true }, { point: "3", text: "How cold?" }] };
  await replies(askId, round1);
  expect(toolReply(await call)).toEqual({ askId, reply: round1 as any });

  // The agent answers both, breaking 1 into two sub-points.
  let answer = running(
    s.agent.call("answer_briefing", {
      askId,
      answers: [
        { point: "1", answer: "Two reasons:", points: [{ title: "No cache key for templates" }, { title: "Hot reload", detail: "Dev mode recompiles." }] },
        { point: "3", answer: "Cold for a minute.", content: [{ type: "code", code: "warm()" }] },
      ],
    }),
  );
  const afterAnswer = await askWhen(s.person, askId, (a) => a.status === "awaiting_human" && a.waiting, "the agent waits on its answer");
  const subPoints = afterAnswer.thread.flatMap((e) => (e.author === "agent" ? (e.points ?? []).map((p) => p.id) : []));
  expect(subPoints).toEqual(["1.1", "1.2"]);

  // Round 2: the person writes on 1.1, resolves 1.2 and 3.
  const round2 = { outcome: "responded", points: [{ point: "1.1", text: "Add one?" }, { point: "1.2", resolved: true }, { point: "3", text: "Fine.", resolved: true }] };
  await replies(askId, round2);
  expect(toolReply(await answer).reply).toEqual(round2 as any);

  // The agent breaks 1.1 into a third level.
  answer = running(s.agent.call("answer_briefing", { askId, answers: [{ point: "1.1", answer: "Yes, keyed by path.", points: [{ title: "Key by path and mtime" }] }] }));
  await askWhen(s.person, askId, (a) => a.status === "awaiting_human");

  // Round 3: the person writes on 1.1.1; the agent answers without going deeper.
  const round3 = { outcome: "responded", points: [{ point: "1.1.1", text: "Why mtime?" }] };
  await replies(askId, round3);
  expect(toolReply(await answer).reply).toEqual(round3 as any);
  answer = running(s.agent.call("answer_briefing", { askId, answers: [{ point: "1.1.1", answer: "So edits show without a restart." }] }));
  await askWhen(s.person, askId, (a) => a.status === "awaiting_human");

  // Resolving point 1 resolves everything beneath it: every point is resolved and the briefing closes.
  const round4 = { outcome: "responded", points: [{ point: "1", text: "Go ahead.", resolved: true }] };
  await replies(askId, round4);
  expect(toolReply(await answer)).toEqual({ askId, reply: round4 as any });
  const closed = await readAsk(s.person, askId);
  expect(closed.status).toBe("closed");
  expect(closed.thread.map((e) => e.author)).toEqual(["human", "agent", "agent", "human", "agent", "human", "agent", "human"]);
  expect(expectRefusal(await s.agent.call("answer_briefing", { askId, answers: [{ point: "1", answer: "One more thing." }] }), "ask.closed")).toBeTruthy();
});

test("a question asked back is answered with answer_follow_up, which returns the person's decision", async () => {
  const { ask, call } = await open("ask_question", (p) => questionInput(p));
  await replies(ask.id, { outcome: "follow_up", question: "How big is the cache?" });
  expect(toolReply(await call)).toEqual({ askId: ask.id, reply: { outcome: "follow_up", question: "How big is the cache?" } });
  expect((await readAsk(s.person, ask.id)).status).toBe("awaiting_agent");

  const answer = running(s.agent.call("answer_follow_up", { askId: ask.id, answer: "About 2 GB.", content: [{ type: "code", code: "du -sh cache" }] }));
  const waiting = await askWhen(s.person, ask.id, (a) => a.status === "awaiting_human" && a.waiting);
  expect(waiting.thread.at(-1)).toMatchObject({ author: "agent", answer: "About 2 GB." });
  await replies(ask.id, { outcome: "answered", selected: ["Redis"] });
  expect(toolReply(await answer)).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: ["Redis"] } });
});

test("a review can be asked back about, then approved", async () => {
  const { ask, call } = await open("request_review", (p) => reviewInput(p));
  await replies(ask.id, { outcome: "follow_up", question: "Why a minute?" });
  expect(toolReply(await call).reply).toEqual({ outcome: "follow_up", question: "Why a minute?" });
  const answer = running(s.agent.call("answer_follow_up", { askId: ask.id, answer: "Pages change hourly." }));
  await askWhen(s.person, ask.id, (a) => a.status === "awaiting_human");
  await replies(ask.id, { outcome: "approved" });
  expect(toolReply(await answer).reply).toEqual({ outcome: "approved" });
});

test("a dismissed question or review returns `dismissed`", async () => {
  for (const [tool, input] of [
    ["ask_question", questionInput],
    ["request_review", reviewInput],
  ] as const) {
    const { ask, call } = await open(tool, (p) => input(p));
    await replies(ask.id, { outcome: "dismissed" });
    expect(toolReply(await call)).toEqual({ askId: ask.id, reply: { outcome: "dismissed" } });
  }
});

test("a briefing dismissed while the agent was answering refuses the answer and hands the agent `dismissed`", async () => {
  const { ask, call } = await open("send_briefing", (p) => briefingInput(p));
  await replies(ask.id, { outcome: "responded", points: [{ point: "1", text: "Why?" }] });
  expect(toolReply(await call).reply?.outcome).toBe("responded");

  // The person sets the briefing aside before the agent answered.
  const dismissed = await replies(ask.id, { outcome: "dismissed" });
  expect(dismissed.status).toBe("closed");
  expectRefusal(await s.agent.call("answer_briefing", { askId: ask.id, answers: [{ point: "1", answer: "Because." }] }), "ask.closed");
  expect(toolReply(await s.agent.call("wait_for_reply", { askId: ask.id }))).toEqual({ askId: ask.id, reply: { outcome: "dismissed" } });
});
