// A call the client cancels (Esc in Claude Code, or its tool timeout, both send
// `notifications/cancelled`) is over: its stream ends, the ask stops showing `waiting` at once, a
// resume of that stream (`GET` + `Last-Event-ID`, which Claude Code's transport sends after the
// `retry`) is refused, and the person's later reply stays for whoever follows the ask next.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { askWhen, newProject, openedAsk, questionInput, scene, toolReply, until, type Scene } from "./mcp-scene.ts";
import { RawClient } from "./raw-client.ts";
import { events } from "../support/sse-events.ts";

let s: Scene;
beforeAll(async () => {
  // A short `retry`: a client that resumes comes back half a second after its stream ends.
  s = await scene({ LOOPBACK_STREAM_RETRY_S: "0.5" });
});
afterAll(() => s.dispose());

test("a cancelled call's stream ends, `waiting` flips at once, its resume is refused, and the reply goes to the next call", async () => {
  const raw = await RawClient.as("claude-code", s.relay.url, s.agentToken).connect();
  const project = newProject();
  const response = await raw.call(3, project, { progressToken: "cc-3" });
  const stream = events(response.body!);
  const priming = (await stream.next()).value!;
  expect(priming.id).toMatch(/^cal_/);
  const ask = await openedAsk(s.person, project);
  await askWhen(s.person, ask.id, (a) => a.waiting, "the call follows it");

  expect((await raw.notify("notifications/cancelled", { requestId: 3, reason: "The user pressed Esc" })).status).toBe(202);
  const cancelledAt = Date.now();
  // The stream ends without a result: nobody awaits one.
  for await (const event of stream) expect(event.data ? JSON.parse(event.data).id : undefined).toBeUndefined();
  await askWhen(s.person, ask.id, (a) => !a.waiting, "the cancelled call no longer follows it");
  expect(Date.now() - cancelledAt).toBeLessThan(1_000);

  const resumed = await raw.resume(priming.id!);
  expect(resumed.status).toBe(404);
  expect(JSON.stringify(await resumed.json())).toContain("There is no such waiting call to resume");
  expect((await s.person.snapshot()).open.find((a) => a.id === ask.id)?.waiting).toBe(false);

  // The reply given after the cancel is the next call's.
  expect((await s.person.reply(ask.id, { outcome: "answered", selected: ["Redis"] })).status).toBe(200);
  expect(toolReply(await s.agent.call("wait_for_reply", { askId: ask.id }))).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: ["Redis"] } });
});

test("the official SDK client that cancels a call (as Claude Code's tool timeout does) does not resume it after the retry", async () => {
  let resumes = 0;
  const transport = new StreamableHTTPClientTransport(new URL(`${s.relay.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${s.agentToken}` } },
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      if (new Headers(init?.headers).has("last-event-id")) resumes++;
      return response;
    },
  });
  const client = new Client({ name: "claude-code", version: "2.1.328" });
  await client.connect(transport);
  const project = newProject();
  const stop = new AbortController();
  const call = client.callTool({ name: "ask_question", arguments: questionInput(project) }, undefined, { signal: stop.signal, timeout: 60_000 });
  const ask = await openedAsk(s.person, project);
  await askWhen(s.person, ask.id, (a) => a.waiting, "the call follows it");
  stop.abort("MCP_TOOL_TIMEOUT");
  await expect(call).rejects.toThrow();
  await askWhen(s.person, ask.id, (a) => !a.waiting, "the cancelled call no longer follows it");
  // The transport tries to resume the stream it saw end without a result; the relay refuses it.
  await until(() => resumes > 0, "the transport tried to resume the cancelled call's stream", 5_000);
  expect((await s.person.snapshot()).open.find((a) => a.id === ask.id)?.waiting).toBe(false);
  expect((await s.person.reply(ask.id, { outcome: "answered", selected: ["SQLite"] })).status).toBe(200);
  expect(toolReply(await s.agent.call("wait_for_reply", { askId: ask.id }))).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: ["SQLite"] } });
  await client.close();
}, 20_000);
