// Claude Code opens with a 2026-07-28 `server/discover` probe before `initialize`. The relay speaks
// the initialize-based revisions only, so it answers as that revision says such a server does over
// Streamable HTTP: `400 Bad Request` whose body is no recognized modern error (not -32022 and the
// like), at once, so the client falls back to `initialize` without waiting for a timeout.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { scene, type Scene } from "./mcp-scene.ts";
import { RawClient } from "./raw-client.ts";

let s: Scene;
beforeAll(async () => {
  s = await scene();
});
afterAll(() => s.dispose());

test("a server/discover probe on protocol 2026-07-28 gets 400 with a legacy JSON-RPC error at once, and initialize then works", async () => {
  const probe = await fetch(`${s.relay.url}/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${s.agentToken}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": "2026-07-28",
      "Mcp-Method": "server/discover",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "server/discover",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "claude-code", version: "2.1.328" }, "io.modelcontextprotocol/clientCapabilities": {} } },
    }),
    signal: AbortSignal.timeout(5_000),
  });
  expect(probe.status).toBe(400);
  const body = await probe.json();
  expect(body.jsonrpc).toBe("2.0");
  // Not a modern error (UnsupportedProtocolVersionError is -32022; -32601 is in the modern schema too).
  expect(body.error.code).toBe(-32000);
  expect(probe.headers.get("mcp-session-id")).toBeNull();
  const raw = await RawClient.as("claude-code", s.relay.url, s.agentToken).connect();
  expect(raw.sessionId).toBeTruthy();
});
