// Clients that never end their sessions (Gemini CLI sends no `DELETE`: every launch, even
// `gemini mcp list`, leaves one behind) never lock a token out: at the cap the least recently used
// session nobody holds goes, and a new client connects. Sessions in use stay: one with its standing
// stream open, one with a call waiting on the person.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Agent } from "../support/agent.ts";
import { askWhen, newProject, openedAsk, scene, toolReply, type Scene } from "./mcp-scene.ts";
import { RawClient } from "./raw-client.ts";
import { events } from "../support/sse-events.ts";

let s: Scene;
beforeAll(async () => {
  // The default cap of sessions per token (1,000).
  s = await scene();
});
afterAll(() => s.dispose());

const SESSIONS = 1_001;

test(`${SESSIONS.toLocaleString("en")} sessions never closed leave a new client connected, and sessions in use stay`, async () => {
  // In use: the scene's agent (its standing GET stream is open) and a call waiting on the person.
  const waiting = await RawClient.as("claude-code", s.relay.url, s.agentToken).connect();
  const project = newProject();
  const call = await waiting.call(1, project);
  const stream = events(call.body!);
  await stream.next();
  const ask = await openedAsk(s.person, project);
  await askWhen(s.person, ask.id, (a) => a.waiting, "the call follows it");

  // Launches that initialize and go away, never sending DELETE.
  let left = 0;
  const launch = async () => {
    while (left < SESSIONS) {
      left++;
      await RawClient.as("gemini-cli", s.relay.url, s.agentToken).connect();
    }
  };
  await Promise.all(Array.from({ length: 16 }, launch));
  // At the cap: launches at once on PostgreSQL may each make room, or each see room, so by a few.
  const [stored] = await s.relay.rows("SELECT count(*) AS n FROM mcp_sessions");
  expect(Math.abs(Number((stored as { n: number }).n) - 1_000)).toBeLessThanOrEqual(16);

  const fresh = await Agent.connect(s.relay.url, s.agentToken, "gemini-cli-mcp-client", "0.61.0");
  expect((await fresh.call("get_inbox_link", {})).isError ?? false).toBe(false);
  await fresh.close();

  expect((await s.agent.client.listTools()).tools.length).toBeGreaterThan(0);
  expect((await s.person.reply(ask.id, { outcome: "answered", selected: ["None"] })).status).toBe(200);
  let result: any;
  for await (const event of stream) if (event.data && event.data !== "{}") result = JSON.parse(event.data);
  expect(toolReply(result.result)).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: ["None"] } });
}, 120_000);
