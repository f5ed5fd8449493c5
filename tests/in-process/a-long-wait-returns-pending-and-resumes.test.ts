// A blocking call's wait budget, on a clock the test moves: on both stores, which record what was handed over.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ToolReply } from "@loopback/shared/generated/types";
import { askWhen, briefingInput, newProject, openedAsk, questionInput, readAsk, reviewInput, running, toolReply, until } from "../mcp/mcp-scene.ts";
import { BOTH_STORES, inProcessScene, type InProcessScene } from "../support/in-process-scene.ts";

// Every blocking call returns after one second of the test's clock without a reply.
const BUDGET_MS = 1_000;

describe.each(BOTH_STORES)("on %s", (store) => {
  let s: InProcessScene;
  beforeAll(async () => {
    s = await inProcessScene({ store, env: { LOOPBACK_WAIT_BUDGET_S: String(BUDGET_MS / 1000) } });
  }, 30_000);
  afterAll(() => s.dispose());

  /** A call expected to wait its whole budget: the clock moves on until it returns. */
  async function call(tool: string, args: Record<string, unknown>): Promise<ToolReply> {
    const call = running(s.agent.call(tool, args));
    await until(async () => {
      if (!call.settled && s.clock.dueWithin(BUDGET_MS)) await s.clock.advance(BUDGET_MS);
      return call.settled;
    }, `${tool} returned`);
    return toolReply(await call);
  }

  function expectPending(result: ToolReply, askId: string) {
    expect(result.askId).toBe(askId);
    expect(result.reply).toBeUndefined();
    expect(result.pending?.message).toContain(`call wait_for_reply with askId "${askId}"`);
    return result.pending!;
  }

  async function pendingQuestion() {
    const project = newProject();
    const result = await call("ask_question", questionInput(project));
    const ask = await openedAsk(s.person, project);
    return { ask, result };
  }

  test("a call that waited its budget returns `pending`, not an error, and wait_for_reply waits on and returns the reply", async () => {
    const project = newProject();
    const asked = running(s.agent.call("ask_question", questionInput(project)));
    const ask = await openedAsk(s.person, project, asked);
    await until(() => s.clock.dueWithin(BUDGET_MS) > 0, "the call waits on its budget");
    // Not a moment before its budget, and at once when it is spent.
    await s.clock.advance(BUDGET_MS - 1);
    expect(asked.settled).toBe(false);
    await s.clock.advance(1);
    expect(expectPending(toolReply(await asked), ask.id).waitedSeconds).toBe(1);
    // Still the person's to answer, and nobody follows it until the agent comes back.
    expect(await askWhen(s.person, ask.id, (a) => !a.waiting, "the call let go of it")).toMatchObject({ status: "awaiting_human", waiting: false });

    const resumed = running(s.agent.call("wait_for_reply", { askId: ask.id }));
    await askWhen(s.person, ask.id, (a) => a.waiting, "wait_for_reply follows it");
    await s.person.reply(ask.id, { outcome: "answered", selected: ["SQLite"] });
    expect(toolReply(await resumed)).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: ["SQLite"] } });
  });

  test("every blocking tool returns `pending` when its budget runs out", async () => {
    const review = async () => {
      const project = newProject();
      const r = await call("request_review", reviewInput(project));
      expectPending(r, (await openedAsk(s.person, project)).id);
    };
    const briefing = async () => {
      const project = newProject();
      const b = await call("send_briefing", briefingInput(project));
      const askId = (await openedAsk(s.person, project)).id;
      expectPending(b, askId);
      await s.person.reply(askId, { outcome: "responded", points: [{ point: "1", text: "Why?" }] });
      expect((await call("wait_for_reply", { askId })).reply?.outcome).toBe("responded");
      expectPending(await call("answer_briefing", { askId, answers: [{ point: "1", answer: "Because." }] }), askId);
    };
    const followUp = async () => {
      const { ask } = await pendingQuestion();
      await s.person.reply(ask.id, { outcome: "follow_up", question: "Why?" });
      expect((await call("wait_for_reply", { askId: ask.id })).reply?.outcome).toBe("follow_up");
      expectPending(await call("answer_follow_up", { askId: ask.id, answer: "Speed." }), ask.id);
      expectPending(await call("wait_for_reply", { askId: ask.id }), ask.id);
    };
    await Promise.all([review(), briefing(), followUp()]);
  });

  test("wait_for_reply returns at once when the person replied while nobody was waiting", async () => {
    const { ask } = await pendingQuestion();
    await s.person.reply(ask.id, { outcome: "answered", selected: [], text: "Neither." });
    const started = Date.now();
    // Returned without the clock moving at all.
    expect(toolReply(await s.agent.call("wait_for_reply", { askId: ask.id }))).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: [], text: "Neither." } });
    expect(Date.now() - started).toBeLessThan(500);
  });

  test("a reply is handed over once: a later wait while the person has the move waits for their next reply", async () => {
    const project = newProject();
    const sent = await call("send_briefing", briefingInput(project));
    const askId = sent.askId;
    const first = { outcome: "responded", points: [{ point: "1", text: "Why?" }, { point: "2", resolved: true }] };
    await s.person.reply(askId, first);
    expect((await call("wait_for_reply", { askId })).reply).toEqual(first as any);
    expectPending(await call("answer_briefing", { askId, answers: [{ point: "1", answer: "Because." }] }), askId);

    // The person's move again: the old reply is not handed over a second time.
    expectPending(await call("wait_for_reply", { askId }), askId);
    const second = { outcome: "responded", points: [{ point: "1", resolved: true }, { point: "3", resolved: true }] };
    await s.person.reply(askId, second);
    expect((await call("wait_for_reply", { askId })).reply).toEqual(second as any);
    expect((await readAsk(s.person, askId)).status).toBe("closed");
  });

  test("wait_for_reply hands the latest reply over again once the ask is no longer the person's move, for an agent that lost it", async () => {
    const { ask } = await pendingQuestion();
    await s.person.reply(ask.id, { outcome: "follow_up", question: "For which pages?" });
    const handed = await call("wait_for_reply", { askId: ask.id });
    expect(handed.reply).toEqual({ outcome: "follow_up", question: "For which pages?" });
    // The agent's move: the result was lost on the way, and asking again recovers it.
    expect(await call("wait_for_reply", { askId: ask.id })).toEqual(handed);

    const answer = running(s.agent.call("answer_follow_up", { askId: ask.id, answer: "All of them." }));
    await askWhen(s.person, ask.id, (a) => a.status === "awaiting_human");
    await s.person.reply(ask.id, { outcome: "answered", selected: ["Redis"] });
    const decided = toolReply(await answer);
    expect(decided.reply).toEqual({ outcome: "answered", selected: ["Redis"] });
    // Closed: the decision stays there for a lost result to be recovered, as often as needed.
    expect(await call("wait_for_reply", { askId: ask.id })).toEqual(decided);
    expect(await call("wait_for_reply", { askId: ask.id })).toEqual(decided);
  });

  test("two calls waiting on one ask both get the reply, and neither is cut short for the other", async () => {
    const { ask } = await pendingQuestion();
    const older = running(s.agent.call("wait_for_reply", { askId: ask.id }));
    await askWhen(s.person, ask.id, (a) => a.waiting, "the first wait follows it");
    const newer = running(s.agent.call("wait_for_reply", { askId: ask.id }));
    await until(() => s.clock.dueWithin(BUDGET_MS) >= 2, "both calls wait");
    await s.clock.advance(BUDGET_MS / 5);
    expect(older.settled).toBe(false);
    await s.person.reply(ask.id, { outcome: "dismissed" });
    expect(toolReply(await older)).toEqual({ askId: ask.id, reply: { outcome: "dismissed" } });
    expect(toolReply(await newer)).toEqual({ askId: ask.id, reply: { outcome: "dismissed" } });
    await askWhen(s.person, ask.id, (a) => !a.waiting, "nobody follows it once both returned");
  });
});
