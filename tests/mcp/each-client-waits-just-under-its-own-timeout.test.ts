// Every `pending` costs the agent a model turn: a blocking call waits as long as its client lets it,
// by the name its `initialize` gave. Claude Code (no hard limit, an idle timeout progress resets)
// 30 min; Codex (300 s, not reset by progress) 290 s; Gemini CLI (600 s) 590 s; any other client 50 s.
// Configuration wins: LOOPBACK_WAIT_BUDGET_S for every client, LOOPBACK_CLIENT_WAIT_BUDGETS per client.
import { afterEach, beforeEach, expect, jest, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { configFromEnv } from "../../relay/src/config.ts";
import { BlockingCalls } from "../../relay/src/mcp/blocking-call.ts";
import { waitBudgetMs } from "../../relay/src/mcp/clients.ts";
import { askQuestion } from "../../relay/src/mcp/tools/ask-question.ts";
import { Relay } from "../../relay/src/relay.ts";

const budgetS = (env: Record<string, string>, client: string | undefined) => waitBudgetMs(configFromEnv(env), client) / 1000;

test("each client's wait ends just before its own timeout; an unknown client's after 50 s", () => {
  expect(budgetS({}, "claude-code")).toBe(1_800);
  expect(budgetS({}, "codex-mcp-client")).toBe(290);
  expect(budgetS({}, "gemini-cli-mcp-client")).toBe(590);
  expect(budgetS({}, "some-other-agent")).toBe(50);
  expect(budgetS({}, undefined)).toBe(50);
  // A name that is an object's own key elsewhere is still unknown.
  expect(budgetS({}, "constructor")).toBe(50);
});

test("configuration overrides the clients' budgets: one for every client, or one per client", () => {
  expect(budgetS({ LOOPBACK_WAIT_BUDGET_S: "20" }, "claude-code")).toBe(20);
  expect(budgetS({ LOOPBACK_WAIT_BUDGET_S: "20" }, "unknown")).toBe(20);
  const env = { LOOPBACK_WAIT_BUDGET_S: "20", LOOPBACK_CLIENT_WAIT_BUDGETS: "codex-mcp-client=120, my-agent=0" };
  expect(budgetS(env, "codex-mcp-client")).toBe(120);
  expect(budgetS(env, "my-agent")).toBe(0);
  expect(budgetS(env, "gemini-cli-mcp-client")).toBe(20);
  expect(() => configFromEnv({ LOOPBACK_CLIENT_WAIT_BUDGETS: "codex-mcp-client" })).toThrow("name=seconds");
  expect(() => configFromEnv({ LOOPBACK_CLIENT_WAIT_BUDGETS: "codex-mcp-client=soon" })).toThrow("name=seconds");
});

let dataDir: string;
let relay: Relay;
beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "loopback-client-budgets-"));
  // On the SQLite file whatever the suite's store: a fake clock also stops the PostgreSQL client's
  // own timers, and the budget is the blocking call's rule, not the store's.
  relay = await Relay.open(configFromEnv({ LOOPBACK_DATA: dataDir }));
});
afterEach(async () => {
  jest.useRealTimers();
  await new Promise((r) => setImmediate(r));
  await relay.push.settle();
  await relay.close();
  rmSync(dataDir, { recursive: true, force: true });
});

for (const [client, limitS] of [
  ["codex-mcp-client", 300],
  ["gemini-cli-mcp-client", 600],
] as const) {
  test(`a call of ${client} returns \`pending\` 10 s before its ${limitS} s timeout, not before`, async () => {
    jest.useFakeTimers();
    const agent = (await relay.gate.createToken({ person: "ada", agent: true })).caller;
    const calls = new BlockingCalls({ waiting: relay.waiting, asks: relay.asks, calls: relay.store.calls, clock: relay.clock, config: relay.config });
    const project = `budget-${client}-${Date.now()}`;
    let settled: CallToolResult | undefined;
    const ctx = { asks: relay.asks, uploads: relay.uploads, publicUrl: "http://127.0.0.1", caller: agent, client: `${client} 1` };
    void calls
      .open(agent, undefined, client)
      .start(ctx, askQuestion, { question: "Go?", project })
      .then((r) => (settled = r));
    // Turns of the event loop, not timers: the call opens its ask and follows it.
    for (let i = 0; i < 10_000 && relay.waiting.count === 0; i++) await new Promise((r) => process.nextTick(r));
    expect(relay.waiting.count).toBe(1);
    jest.advanceTimersByTime((limitS - 11) * 1000);
    for (let i = 0; i < 100; i++) await new Promise((r) => process.nextTick(r));
    expect(settled).toBeUndefined();
    jest.advanceTimersByTime(1000);
    for (let i = 0; i < 10_000 && !settled; i++) await new Promise((r) => process.nextTick(r));
    expect((settled!.structuredContent as any).pending.waitedSeconds).toBe(limitS - 10);
  });
}

test("a call whose budget runs out returns `pending`, having told its client it waits on the way", async () => {
  jest.useFakeTimers();
  const agent = (await relay.gate.createToken({ person: "ada", agent: true })).caller;
  const calls = new BlockingCalls({ waiting: relay.waiting, asks: relay.asks, calls: relay.store.calls, clock: relay.clock, config: { ...relay.config, waitBudgetMs: 50_000, progressEveryMs: 10_000, waitBudgetForAll: true } });
  const input = { question: "Which cache?", options: [{ label: "SQLite" }, { label: "Redis" }], project: `budget-${Date.now()}` };
  const waited: number[] = [];
  const result = calls.open(agent).start({ asks: relay.asks, uploads: relay.uploads, publicUrl: "http://127.0.0.1", caller: agent }, askQuestion, input, (ms) => waited.push(ms));
  for (let i = 0; i < 10_000 && relay.waiting.count === 0; i++) await new Promise((r) => process.nextTick(r));
  const askId = (await relay.asks.snapshot(agent)).open.find((a) => a.project === input.project)!.id;
  jest.advanceTimersByTime(50_000);
  const { pending } = (await result).structuredContent as any;
  expect(pending.waitedSeconds).toBe(50);
  expect(pending.message).toContain(`wait_for_reply with askId "${askId}"`);
  // The last tick may come in the same instant as the budget's end.
  expect(waited.slice(0, 4)).toEqual([10_000, 20_000, 30_000, 40_000]);
  expect(waited.length).toBeLessThanOrEqual(5);
});
