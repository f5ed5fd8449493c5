import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Ask } from "@loopback/shared/generated/types";
import { Agent, structured } from "../support/agent.ts";
import { askWhen, scene, type BareScene } from "../support/scene.ts";
import { briefing, question, review } from "./open-ask.ts";

let s: BareScene;
beforeAll(async () => {
  s = await scene({ client: false });
});
afterAll(() => s.dispose());

/** Revision 1's snapshot, which this person reads: every ask whole. */
type Snapshot = { open: Ask[]; recent: Ask[] };

const notWaiting = (snapshot: Snapshot): Snapshot => ({
  open: snapshot.open.map((a) => ({ ...a, waiting: false })),
  recent: snapshot.recent.map((a) => ({ ...a, waiting: false })),
});

test("a restart keeps every open and closed ask as it was, and no agent is waiting after it", async () => {
  const agent = await Agent.connect(s.relay.url, s.agentToken);
  const answered = await question(s.person, agent);
  await s.person.reply(answered.ask.id, { outcome: "answered", selected: ["B"], text: "B." });
  const approved = await review(s.person, agent);
  await s.person.reply(approved.ask.id, { outcome: "approved", note: "Good." });
  const askedBack = await review(s.person, agent);
  await s.person.reply(askedBack.ask.id, { outcome: "follow_up", question: "Why?" });
  const briefed = await briefing(s.person, agent);
  await s.person.reply(briefed.ask.id, { outcome: "responded", points: [{ point: "1", text: "Explain." }, { point: "2", resolved: true }] });
  await briefed.call;
  const answering = agent.call("answer_briefing", { askId: briefed.ask.id, answers: [{ point: "1", answer: "It is faster.", points: [{ title: "Measured" }] }] });
  answering.catch(() => {});
  await askWhen(s.person, briefed.ask.id, (a) => a.status === "awaiting_human", "it awaits the person");
  const waitedOn = await question(s.person, agent);
  await Promise.all([answered.call, approved.call, askedBack.call]);

  const before = await s.person.snapshot();
  expect(before.open.map((a) => a.id)).toEqual([waitedOn.ask.id, briefed.ask.id, askedBack.ask.id]);
  expect(before.recent.map((a) => a.id)).toEqual([approved.ask.id, answered.ask.id]);
  expect(before.open.filter((a) => a.waiting).map((a) => a.id).sort()).toEqual([briefed.ask.id, waitedOn.ask.id].sort());

  await s.relay.stop();
  await agent.close().catch(() => {});
  await Promise.allSettled([answering, waitedOn.call]);
  await s.relay.start();

  const after = await s.person.snapshot();
  expect(after).toEqual(notWaiting(before));
  expect([...after.open, ...after.recent].some((a) => a.waiting)).toBe(false);

  // An agent that comes back picks its wait up again and gets the reply given meanwhile.
  const back = await Agent.connect(s.relay.url, s.agentToken);
  await s.person.reply(waitedOn.ask.id, { outcome: "answered", selected: ["C"] });
  expect(structured(await back.call("wait_for_reply", { askId: waitedOn.ask.id }))).toEqual({
    askId: waitedOn.ask.id,
    reply: { outcome: "answered", selected: ["C"] },
  });
  await back.close();
});

test("after a crash every reply that was acknowledged is still there", async () => {
  const agent = await Agent.connect(s.relay.url, s.agentToken);
  const asks = [];
  for (let i = 0; i < 8; i++) asks.push(await question(s.person, agent));
  const acknowledged: Record<string, Ask> = {};
  let crashed: Promise<void> | undefined;
  for (const [i, { ask }] of asks.entries()) {
    // The replies from the fifth on race the crash: only those answered 200 must survive it.
    if (i === 4) crashed = s.relay.kill9();
    const res = await s.person.reply(ask.id, { outcome: "answered", selected: [], text: `Reply ${i}` }).catch(() => undefined);
    if (!res) break;
    expect(res.status).toBe(200);
    acknowledged[ask.id] = res.body;
  }
  await crashed;
  await agent.close().catch(() => {});
  await Promise.allSettled(asks.map((a) => a.call));
  await s.relay.start();

  expect(Object.keys(acknowledged).length).toBeGreaterThanOrEqual(4);
  for (const [id, replied] of Object.entries(acknowledged)) {
    const { status, body } = await s.person.api<Ask>("GET", `/asks/${id}`);
    expect(status).toBe(200);
    expect(body.status).toBe("closed");
    expect(body.thread).toEqual(replied.thread);
    expect(body.closedAt).toBe(replied.closedAt!);
  }
});
