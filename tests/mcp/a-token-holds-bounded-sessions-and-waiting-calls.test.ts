// One token cannot hold the relay: past its limits a new MCP session gets 429 `sessions.too_many`
// and a new blocking call an `isError` result with `calls.too_many` — never a crash — while what it
// already holds keeps working, and another token is not affected.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Agent } from "../support/agent.ts";
import { expectRefusal, newProject, openedAsk, questionInput, running, scene, toolReply, type Scene } from "./mcp-scene.ts";

let s: Scene;
beforeAll(async () => {
  s = await scene({ LOOPBACK_MAX_SESSIONS_PER_TOKEN: "3", LOOPBACK_MAX_WAITING_PER_TOKEN: "2" });
});
afterAll(() => s.dispose());

test("past its session limit a token's initialize gets 429 sessions.too_many; its sessions work on", async () => {
  // The scene's agent holds the first session.
  const more = [await Agent.connect(s.relay.url, s.agentToken), await Agent.connect(s.relay.url, s.agentToken)];
  const res = await fetch(`${s.relay.url}/mcp`, {
    method: "POST",
    headers: { Authorization: `Bearer ${s.agentToken}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "one-too-many", version: "1" } } }),
  });
  expect(res.status).toBe(429);
  expect((await res.json()).code).toBe("sessions.too_many");
  expect((await more[1].client.listTools()).tools.length).toBeGreaterThan(0);
  // A session closed by its client makes room.
  await more[1].transport.terminateSession();
  await more[1].close();
  const again = await Agent.connect(s.relay.url, s.agentToken);
  await again.close();
  await more[0].close();
});

test("past its waiting limit a token's next blocking call is refused with calls.too_many, and opens no ask", async () => {
  const projects = [newProject(), newProject()];
  const calls = projects.map((p) => running(s.agent.call("ask_question", questionInput(p))));
  const asks = await Promise.all(projects.map((p, i) => openedAsk(s.person, p, calls[i])));
  const third = newProject();
  expectRefusal(await s.agent.call("ask_question", questionInput(third)), "calls.too_many");
  expect((await s.person.snapshot()).open.some((a) => a.project === third)).toBe(false);
  for (const ask of asks) await s.person.reply(ask.id, { outcome: "dismissed" });
  for (const call of calls) expect(toolReply(await call).reply).toEqual({ outcome: "dismissed" });
  // Room again once they returned.
  const later = newProject();
  const call = running(s.agent.call("ask_question", questionInput(later)));
  await s.person.reply((await openedAsk(s.person, later, call)).id, { outcome: "dismissed" });
  expect(toolReply(await call).reply).toEqual({ outcome: "dismissed" });
});
