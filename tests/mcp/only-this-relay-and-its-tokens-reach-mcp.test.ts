import { afterAll, beforeAll, expect, test } from "bun:test";
import { TOOL_SHAPES } from "@loopback/shared/tool-catalog";
import { assertShape } from "../support/contract.ts";
import { scene, type Scene } from "./mcp-scene.ts";

let s: Scene;
beforeAll(async () => {
  s = await scene({ LOOPBACK_ALLOWED_ORIGINS: "chrome-extension://loopbackextensionid" });
});
afterAll(() => s.dispose());

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

function initialize(headers: Record<string, string>, token: string | null = s.agentToken): Promise<Response> {
  return fetch(`${s.relay.url}/mcp`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: INITIALIZE,
  });
}

async function expectProblem(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  const body = await res.json();
  assertShape("1", "Problem", body);
  expect(body.code).toBe(code);
}

test("a request naming another host is refused, as a DNS-rebound page's would be", async () => {
  await expectProblem(await initialize({ Host: "evil.example.com" }), 403, "origin.refused");
  await expectProblem(await initialize({ Host: `evil.example.com:${s.relay.port}` }), 403, "origin.refused");
  await expectProblem(await initialize({ Host: "127.0.0.1.evil.example.com" }), 403, "origin.refused");
});

test("a request from a web page of another origin is refused", async () => {
  await expectProblem(await initialize({ Origin: "http://evil.example.com" }), 403, "origin.refused");
  await expectProblem(await initialize({ Origin: "http://localhost:3000" }), 403, "origin.refused");
  await expectProblem(await initialize({ Origin: "null" }), 403, "origin.refused");
});

test("the relay's own names, on any port, its own origin and the allowed origins are let in", async () => {
  const allowed: Record<string, string>[] = [
    {},
    { Origin: s.relay.url },
    { Host: `localhost:${s.relay.port}`, Origin: `http://localhost:${s.relay.port}` },
    { Host: `[::1]:${s.relay.port}` },
    { Host: "localhost:9999" },
    { Origin: "chrome-extension://loopbackextensionid" },
  ];
  for (const headers of allowed) {
    const res = await initialize(headers);
    expect({ headers, status: res.status }).toEqual({ headers, status: 200 });
    await res.body?.cancel();
  }
});

test("a session is bound to the token that opened it", async () => {
  const other = await s.relay.token("bob", { agent: true });
  const res = await fetch(`${s.relay.url}/mcp`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${other}`,
      "mcp-session-id": s.agent.transport.sessionId!,
      "mcp-protocol-version": s.agent.transport.protocolVersion!,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
  });
  expect(res.status).toBe(404);
  expect((await res.json()).error.code).toBe(-32001);
  expect((await s.agent.client.listTools()).tools.length).toBe(Object.keys(TOOL_SHAPES).length);
});
