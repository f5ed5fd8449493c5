// Every client people run gets a resumable stream, whatever protocol it negotiates: Claude Code
// (2025-11-25) a priming event; Codex and Gemini CLI (2025-06-18) an opening event of the relay's
// own type that their SDKs keep the id of and read no message from. A stopping relay hands each of
// their calls over (the stream ends without a result), and the client's resume on the next process
// returns the person's answer; after a `kill -9` too.
import { events as sseEvents } from "../support/sse-events.ts";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { askWhen, newProject, openedAsk, questionInput, running, scene, toolReply, type Scene } from "./mcp-scene.ts";
import { CLIENTS, RawClient, type ClientKind } from "./raw-client.ts";

let s: Scene;
beforeAll(async () => {
  // The default `retry`, 3 s: a client comes back 3 s after its stream ends, and again 3 s later
  // (the SDK's two attempts span a restart on a loaded machine: one on PostgreSQL took over 3 s).
  s = await scene({ LOOPBACK_STREAM_RETRY_S: "3" });
});
afterAll(() => s.dispose());

const KINDS = Object.keys(CLIENTS) as ClientKind[];

for (const kind of KINDS) {
  test(`${kind} (${CLIENTS[kind].protocolVersion}): its call's first event carries an id; SIGTERM hands the call over and its resume returns the answer`, async () => {
    const raw = await RawClient.as(kind, s.relay.url, s.agentToken).connect();
    const project = newProject();
    const response = await raw.call(11, project, { progressToken: CLIENTS[kind].progressToken(11) });
    const events = sseEvents(response.body!);
    const first = (await events.next()).value!;
    expect(first.id).toMatch(/^cal_[0-9a-z]+:0$/);
    if (CLIENTS[kind].protocolVersion >= "2025-11-25") expect(first).toEqual({ event: undefined, id: first.id, data: "" });
    // Not a message for an SDK that reads only `message` events; data, so an older parser keeps it.
    else expect(first).toEqual({ event: "loopback-call", id: first.id, data: "{}" });
    const ask = await openedAsk(s.person, project);
    await askWhen(s.person, ask.id, (a) => a.waiting, "the call follows it");

    const stopped = s.relay.stop();
    let last = first.id!;
    for await (const event of events) {
      // Handed over: no result on this stream, only ids to resume from.
      expect(event.data && event.event !== "loopback-call" ? JSON.parse(event.data).id : undefined).toBeUndefined();
      if (event.id) last = event.id;
    }
    await stopped;
    await s.relay.start();
    expect((await s.person.reply(ask.id, { outcome: "answered", selected: ["Redis"] })).status).toBe(200);
    const resumed = await raw.resume(last);
    expect(resumed.status).toBe(200);
    let result: any;
    for await (const event of sseEvents(resumed.body!)) if (event.data && event.event === "message") result = { id: event.id, message: JSON.parse(event.data) };
    expect(result.id).toMatch(/:done$/);
    expect(result.message.id).toBe(11);
    expect(toolReply(result.message.result)).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: ["Redis"] } });
  }, 20_000);
}

/**
 * The official TypeScript SDK client (the transport Claude Code and Gemini CLI bundle) posing as a
 * client on 2025-06-18: its `initialize` asks for that version, as Codex's and Gemini CLI's do.
 */
async function connectAs(kind: ClientKind) {
  const { name, version, protocolVersion } = CLIENTS[kind];
  let initializes = 0;
  const transport = new StreamableHTTPClientTransport(new URL(`${s.relay.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${s.agentToken}` } },
    // Reconnects on the server's `retry`, twice, as the SDK's defaults do.
    fetch: async (url, init) => {
      if (typeof init?.body === "string" && init.body.includes('"initialize"')) {
        initializes++;
        const body = JSON.parse(init.body);
        body.params.protocolVersion = protocolVersion;
        init = { ...init, body: JSON.stringify(body) };
      }
      return fetch(url, init);
    },
  });
  const client = new Client({ name, version });
  await client.connect(transport);
  expect(client.getServerCapabilities()).toBeDefined();
  return { client, initializes: () => initializes };
}

for (const [how, stop] of [
  ["SIGTERM", () => s.relay.stop()],
  ["kill -9", () => s.relay.kill9()],
] as const) {
  for (const kind of ["codex", "gemini-cli"] as const) {
    test(`an SDK client on 2025-06-18 posing as ${kind}: a call waiting across ${how} returns the answer given after the restart, with no new initialize`, async () => {
      const { client, initializes } = await connectAs(kind);
      const project = newProject();
      const call = running(client.callTool({ name: "ask_question", arguments: questionInput(project) }, undefined, { timeout: 60_000 }) as Promise<CallToolResult>);
      const ask = await openedAsk(s.person, project, call);
      await askWhen(s.person, ask.id, (a) => a.waiting, "the call follows it");
      await stop();
      await s.relay.start();
      expect((await s.person.reply(ask.id, { outcome: "answered", selected: ["SQLite"] })).status).toBe(200);
      expect(toolReply(await call)).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: ["SQLite"] } });
      expect(initializes()).toBe(1);
      await client.close();
    }, 20_000);
  }
}
