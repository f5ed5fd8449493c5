// MCP sessions and a call's resumable stream live in the database: a session made on one replica
// is served by every other, and a stream begun on one is resumed (`Last-Event-ID`) on another, its
// result sent once. What a load balancer does to an agent whose replica went away, done here by
// hand so the test knows which replica serves what.
import { describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Replicas, withReplicas } from "../support/replicas.ts";
import { askWhen, newProject, openedAsk, readAsk, running } from "../support/scene.ts";
import { questionInput, toolReply } from "../mcp/mcp-scene.ts";
import { events } from "../support/sse-events.ts";

const PROTOCOL = "2025-11-25";

describe.each([2, 3])("%i replicas on one database", (count) => {
  let r: Replicas;
  let personToken: string;
  let agentToken: string;
  withReplicas(count, (started) => ({ r, personToken, agentToken } = started));

  /** A raw MCP request's headers, in session `sessionId` (none before `initialize`). */
  const headers = (sessionId?: string, extra: Record<string, string> = {}) => ({
    Authorization: `Bearer ${agentToken}`,
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    ...(sessionId && { "mcp-session-id": sessionId, "mcp-protocol-version": PROTOCOL }),
    ...extra,
  });

  /** Initializes a session on replica `at` by hand and returns its id. */
  async function session(at: number): Promise<string> {
    const init = await fetch(`${r.urlOf(at)}/mcp`, {
      method: "POST",
      headers: headers(),
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "raw", version: "1" } } }),
    });
    expect(init.status).toBe(200);
    const id = init.headers.get("mcp-session-id")!;
    await init.text();
    const done = await fetch(`${r.urlOf(at)}/mcp`, { method: "POST", headers: headers(id), body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
    expect(done.status).toBe(202);
    return id;
  }

  test("a session the SDK client made on one replica is served by every other, with no new initialize", async () => {
    const first = new Client({ name: "claude-code", version: "2.1.0" });
    const made = new StreamableHTTPClientTransport(new URL(`${r.urlOf(0)}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${agentToken}` } } });
    await first.connect(made);
    const sessionId = made.sessionId!;
    for (let i = 1; i < count; i++) {
      // The same session, carried to replica i: the SDK sends no initialize for a transport that has a session id.
      const transport = new StreamableHTTPClientTransport(new URL(`${r.urlOf(i)}/mcp`), { sessionId, requestInit: { headers: { Authorization: `Bearer ${agentToken}` } } });
      transport.setProtocolVersion(made.protocolVersion!);
      const sent: string[] = [];
      const send = transport.send.bind(transport);
      transport.send = (message, options) => {
        if ("method" in message) sent.push(message.method);
        return send(message, options);
      };
      const client = new Client({ name: "claude-code", version: "2.1.0" });
      await client.connect(transport);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("ask_question");

      // A blocking call in that session, held by replica i and answered on the one before it.
      const project = newProject();
      const call = running(client.callTool({ name: "ask_question", arguments: questionInput(project) }, undefined, { timeout: 60_000 }) as Promise<CallToolResult>);
      const ask = await openedAsk(r.person(personToken, i), project, call);
      // The session's client, as the ask shows it, is the one that initialized on replica 0.
      expect(ask.client).toBe("claude-code 2.1.0");
      await askWhen(r.person(personToken, i), ask.id, (a) => a.waiting, "the call follows it");
      expect((await r.person(personToken, i - 1).reply(ask.id, { outcome: "answered", selected: ["None"] })).status).toBe(200);
      expect(toolReply(await call)).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: ["None"] } });
      expect(sent).not.toContain("initialize");
      expect(transport.sessionId).toBe(sessionId);
      await transport.close();
    }
    await first.close();
  }, 30_000);

  test("a call's stream begun on one replica is resumed with Last-Event-ID on another, and its result is sent once", async () => {
    const [began, replied, resumedOn] = [0, 1 % count, (count - 1) % count || 1];
    const sessionId = await session(began);
    const project = newProject();
    const gone = new AbortController();
    const response = await fetch(`${r.urlOf(began)}/mcp`, {
      method: "POST",
      headers: headers(sessionId),
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "ask_question", arguments: questionInput(project) } }),
      signal: gone.signal,
    });
    const stream = events(response.body!);
    const priming = (await stream.next()).value!;
    expect(priming.id).toMatch(/^cal_/);
    const person = r.person(personToken, replied);
    const ask = await openedAsk(person, project);
    await askWhen(r.person(personToken, began), ask.id, (a) => a.waiting, "the call follows it");
    // The client goes away before the answer: its replica may as well have died.
    gone.abort();
    expect((await person.reply(ask.id, { outcome: "answered", selected: ["Redis"] })).status).toBe(200);

    const resumed = await fetch(`${r.urlOf(resumedOn)}/mcp`, { headers: headers(sessionId, { Accept: "text/event-stream", "last-event-id": priming.id! }) });
    expect(resumed.status).toBe(200);
    let result: { id?: string; data: string } | undefined;
    for await (const event of events(resumed.body!)) if (event.data) result = event;
    expect(result!.id).toMatch(/:done$/);
    const message = JSON.parse(result!.data);
    expect(message.id).toBe(7);
    expect(message.result.structuredContent).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: ["Redis"] } });

    // Holding the result's id, the client has its answer: no replica sends it again.
    for (let i = 0; i < count; i++) {
      const again = await fetch(`${r.urlOf(i)}/mcp`, { headers: headers(sessionId, { Accept: "text/event-stream", "last-event-id": result!.id! }) });
      expect({ replica: i, status: again.status, body: await again.text() }).toEqual({ replica: i, status: 204, body: "" });
    }
    expect((await readAsk(person, ask.id)).thread.filter((e) => e.author === "human")).toHaveLength(1);
  }, 30_000);
});
