// The blocking call, in-process on a real store (no relay spawned): it opens its ask and returns the
// person's reply (its budget running out is in each-client-waits-just-under-its-own-timeout); handed
// over by a stopping relay it ends without a result and its durable record lets another call resume
// it from the same turn; a call whose client does not resume is answered `pending` instead; cancelled,
// its record ends.
import { afterEach, beforeEach, expect, jest, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { configFromEnv } from "../../relay/src/config.ts";
import type { Caller } from "../../relay/src/auth/gate.ts";
import { BlockingCalls, type BlockingCallServices } from "../../relay/src/mcp/blocking-call.ts";
import type { ToolContext } from "../../relay/src/mcp/tool.ts";
import { askQuestion } from "../../relay/src/mcp/tools/ask-question.ts";
import { Relay } from "../../relay/src/relay.ts";
import { freshDatabase, TEST_STORE } from "../support/relay-process.ts";

// A relay of its own for each test: a handed-over relay is a stopping one.
let dataDir: string;
let relay: Relay;
let agent: Caller;
let person: Caller;
beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "loopback-blocking-call-"));
  relay = await Relay.open(configFromEnv({ LOOPBACK_DATA: dataDir, ...(TEST_STORE === "postgres" ? { LOOPBACK_DATABASE_URL: await freshDatabase() } : {}) }));
  agent = (await relay.gate.createToken({ person: "ada", agent: true })).caller;
  person = (await relay.gate.createToken({ person: "ada" })).caller;
});
afterEach(async () => {
  jest.useRealTimers();
  // The last flip of `waiting` is told on the next turn, and its pushes read the store.
  await new Promise((r) => setImmediate(r));
  await relay.push.settle();
  await relay.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const BUDGET_MS = 50_000;
const services = (): BlockingCallServices => ({ waiting: relay.waiting, asks: relay.asks, calls: relay.store.calls, clock: relay.clock, config: { waitBudgetMs: BUDGET_MS, progressEveryMs: 10_000, waitBudgetForAll: false, clientWaitBudgetsMs: {} } });
const ctx = (): ToolContext => ({ asks: relay.asks, uploads: relay.uploads, publicUrl: "http://127.0.0.1", caller: agent, client: "test 1" });
let n = 0;
const question = () => ({ question: "Which cache?", options: [{ label: "SQLite" }, { label: "Redis" }], project: `blocking-call-${++n}-${Date.now()}` });
const structured = (r: CallToolResult) => r.structuredContent as any;

/** The ask a call opened, once the call follows it. */
async function followedAsk(project: string): Promise<string> {
  // Turns of the event loop, not timers: this works on the fake clock too (the store answers without one).
  for (let i = 0; i < 10_000; i++) {
    const open = (await relay.asks.snapshot(person)).open.find((a) => a.project === project);
    // Followed by the call itself, not only by the hold that keeps a new ask `waiting` until then.
    if (open && relay.waiting.takenHere(open.id)) return open.id;
    await new Promise((r) => process.nextTick(r));
  }
  throw new Error("the call never followed its ask");
}

test("a call opens its ask and returns the person's reply", async () => {
  const calls = new BlockingCalls(services());
  const input = question();
  const result = calls.open(agent).start(ctx(), askQuestion, input);
  const askId = await followedAsk(input.project);
  await relay.asks.reply(person, askId, { outcome: "answered", selected: ["Redis"] });
  expect(structured(await result)).toEqual({ askId, reply: { outcome: "answered", selected: ["Redis"] } });
  expect(calls.count).toBe(0);
});

test("a call hears its result in the turn the person's reply commits, before anything that turn puts after it", async () => {
  const calls = new BlockingCalls(services());
  const input = question();
  const order: string[] = [];
  let early: CallToolResult | undefined;
  const result = calls.open(agent).start(ctx(), askQuestion, input, undefined, (r) => {
    early = r;
    order.push("result");
  });
  const askId = await followedAsk(input.project);
  // The reply's commit resolves a promise; what the relay does after it (the frames, the person's
  // answer) runs after this turn. The result comes before: its stream is written and closed at once.
  const replied = relay.asks.reply(person, askId, { outcome: "answered", selected: ["Redis"] }).then(() => order.push("replied"));
  const returned = result.then(() => order.push("returned"));
  await Promise.all([replied, returned]);
  expect(order[0]).toBe("result");
  expect(structured(early!)).toEqual({ askId, reply: { outcome: "answered", selected: ["Redis"] } });
  expect(await result).toEqual(early!);
});

test("handed over, a call whose client resumes ends without a result; its resume returns the reply given meanwhile, from the same turn", async () => {
  const calls = new BlockingCalls(services());
  const input = question();
  const durable = { id: `cal_test${++n}`, sessionId: "session-1", requestId: 7, progressToken: "p", resumes: true };
  const first = calls.open(agent, durable).start(ctx(), askQuestion, input);
  const askId = await followedAsk(input.project);
  await calls.handOverAll(1_000);
  await expect(first).rejects.toThrow("handed over");
  const next = new BlockingCalls(services());
  // Only the session that made the call resumes it.
  expect(await next.resumable(durable.id, "session-2")).toBeUndefined();
  const { record, durable: resumed } = (await next.resumable(durable.id, "session-1"))!;
  expect(record).toMatchObject({ askId, fromTurn: 0, requestId: "7", progressToken: '"p"', sessionId: "session-1" });
  expect(resumed).toEqual(durable);

  await relay.asks.reply(person, askId, { outcome: "answered", selected: ["SQLite"] });
  expect(structured(await next.open(agent, resumed).resume(record))).toEqual({ askId, reply: { outcome: "answered", selected: ["SQLite"] } });
});

test("handed over, a call whose client does not resume is answered `pending`, saying the relay restarts", async () => {
  const calls = new BlockingCalls(services());
  const input = question();
  const result = calls.open(agent, { id: `cal_test${++n}`, sessionId: "session-1", requestId: 1, resumes: false }).start(ctx(), askQuestion, input);
  const askId = await followedAsk(input.project);
  await calls.handOverAll(1_000);
  expect(structured(await result).pending.message).toContain(`The relay is restarting`);
  expect(structured(await result).askId).toBe(askId);
});

test("cancelled, a call ends without a result and its durable record ends with it: there is nothing to resume", async () => {
  const calls = new BlockingCalls(services());
  const input = question();
  const durable = { id: `cal_test${++n}`, sessionId: "session-1", requestId: "r-1", resumes: true };
  const call = calls.open(agent, durable);
  const result = call.start(ctx(), askQuestion, input);
  const askId = await followedAsk(input.project);
  expect(await calls.resumable(durable.id, durable.sessionId)).toBeDefined();
  call.cancel();
  await expect(result).rejects.toThrow("cancelled");
  await call.ended;
  expect(relay.waiting.isFollowed(askId)).toBe(false);
  for (let i = 0; i < 100 && (await calls.resumable(durable.id, durable.sessionId)); i++) await new Promise((r) => setImmediate(r));
  expect(await calls.resumable(durable.id, durable.sessionId)).toBeUndefined();
});
