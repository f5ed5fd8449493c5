// An MCP session lives for days and is kept in the store: it keeps only what rebuilding it needs
// (protocol version, capabilities, client), whatever a client pads its `initialize` with, and an
// `initialize` far larger than any real client's is refused outright.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { scene, type Scene } from "./mcp-scene.ts";

setDefaultTimeout(30_000);

let s: Scene;
beforeAll(async () => {
  s = await scene();
});
afterAll(() => s.dispose());

const PROTOCOL = "2025-11-25";

function post(body: unknown, session?: string): Promise<Response> {
  return fetch(`${s.relay.url}/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${s.agentToken}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...(session ? { "Mcp-Session-Id": session, "Mcp-Protocol-Version": PROTOCOL } : {}),
    },
    body: JSON.stringify(body),
  });
}

const initialize = (padding: string, title = "") => ({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: PROTOCOL, capabilities: { roots: {}, experimental: { padding: { padding } } }, clientInfo: { name: "padded", version: "1.0", title } },
});

const sessionCount = async () => Number((await s.relay.rows<{ n: number }>("select count(*) as n from mcp_sessions"))[0]!.n);

test("an initialize of nearly 1 MiB is refused with a JSON-RPC error and opens no session", async () => {
  const before = await sessionCount();
  const res = await post(initialize("x".repeat(900 * 1024)));
  expect(res.status).toBe(400);
  const body = await res.json();
  expect(body.error.code).toBe(-32602);
  expect(body.error.message).toContain("at most 16 KiB");
  expect(res.headers.get("mcp-session-id")).toBeNull();
  expect(await sessionCount()).toBe(before);
});

test("a padded initialize under the limit is kept without its padding, and the session is rebuilt from what was kept", async () => {
  const res = await post(initialize("p".repeat(6 * 1024), "t".repeat(6 * 1024)));
  expect(res.status).toBe(200);
  const session = res.headers.get("mcp-session-id")!;
  expect(await res.text()).toContain('"serverInfo"');
  await (await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).text();
  const [row] = await s.relay.rows<{ initialize: string }>("select initialize from mcp_sessions where id = $1", session);
  expect(JSON.parse(row!.initialize)).toEqual({ protocolVersion: PROTOCOL, capabilities: { roots: {} }, clientInfo: { name: "padded", version: "1.0" } });
  // Another process rebuilds it from the row alone.
  await s.relay.restart();
  const listed = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, session);
  expect(listed.status).toBe(200);
  expect(await listed.text()).toContain('"ask_question"');
});
