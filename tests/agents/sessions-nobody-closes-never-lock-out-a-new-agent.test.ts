// Gemini CLI never closes its MCP session (no DELETE), so every launch leaves one behind. A token
// holding 1,001 such sessions still connects a new Gemini CLI, whose call gets the person's answer.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { agentScene, askIdIn, askOpened, carries, GEMINI_CLI, question, type AgentScene } from "./agents-scene.ts";

let s: AgentScene;
beforeAll(async () => {
  s = await agentScene();
}, 30_000);
afterAll(() => s.dispose());

/** Opens a session as Gemini CLI does and leaves it, as Gemini CLI does: an `initialize` and nothing after. */
async function abandonedSession(): Promise<number> {
  const res = await fetch(`${s.relay.url}/mcp`, {
    method: "POST",
    headers: { Authorization: `Bearer ${s.agentToken}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "gemini-cli-mcp-client", version: "0.61.0" } } }),
  });
  await res.arrayBuffer();
  return res.status;
}

test("Gemini CLI: 1,001 sessions its earlier launches never closed still leave a new launch connected, and its call gets the answer", async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 1_001; i += 50) statuses.push(...(await Promise.all(Array.from({ length: Math.min(50, 1_001 - i) }, abandonedSession))));
  expect(statuses.filter((st) => st === 200).length).toBeGreaterThanOrEqual(1_000);

  const q = question();
  const run = await s.launch(GEMINI_CLI, { script: [{ tool: "ask_question", args: q.args }, { text: "Redis it is." }] });
  const ask = await askOpened(s.person, q.project, run, 45_000);
  expect((await s.person.reply(ask.id, { outcome: "answered", selected: ["Redis"] })).status).toBe(200);
  const result = await run.results.next("ask_question", carries("Redis"));
  expect(askIdIn(result.text)).toBe(ask.id);
  expect(await run.exited).toBe(0);
}, 120_000);
