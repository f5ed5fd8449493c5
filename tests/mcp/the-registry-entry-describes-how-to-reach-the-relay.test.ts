// server.json, the MCP Registry's entry for Loopback: it keeps the schema's rules, and a client that
// fills in its variables (with plain http, as the test relay has no TLS) reaches the relay's MCP.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ROOT } from "../support/relay-process.ts";
import { scene, type Scene } from "./mcp-scene.ts";

let s: Scene;
beforeAll(async () => {
  s = await scene();
});
afterAll(() => s.dispose());

interface Input {
  name?: string;
  value?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  variables?: Record<string, Input>;
}
const entry = JSON.parse(readFileSync(join(ROOT, "server.json"), "utf8"));
const fill = (template: string, values: Record<string, string>) => template.replace(/\{(\w+)\}/g, (_, name: string) => values[name]);

test("server.json keeps the rules of the registry's 2025-12-11 schema", () => {
  expect(entry.$schema).toBe("https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json");
  expect(entry.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
  expect(entry.description.length).toBeGreaterThan(0);
  expect(entry.description.length).toBeLessThanOrEqual(100);
  expect(entry.version).toMatch(/^\d+\.\d+\.\d+/);
  expect(entry.remotes).toHaveLength(1);
  const [remote] = entry.remotes;
  expect(remote.type).toBe("streamable-http");
  expect(remote.url).toMatch(/^https?:\/\/[^\s]+$/);
  // Every variable a template names is declared, and the token is a secret.
  const declared = (input: { url?: string; value?: string; variables?: Record<string, Input> }, template: string) => {
    for (const [, name] of template.matchAll(/\{(\w+)\}/g)) expect(Object.keys(input.variables ?? {})).toContain(name);
  };
  declared(remote, remote.url);
  const authorization = (remote.headers as Input[]).find((h) => h.name === "Authorization")!;
  declared(authorization, authorization.value!);
  expect([authorization.isRequired, authorization.isSecret, authorization.variables!.token.isSecret]).toEqual([true, true, true]);
});

test("the registry entry, filled in, reaches the relay's MCP with an agent token", async () => {
  const [remote] = entry.remotes;
  const header = (remote.headers as Input[]).find((h) => h.name === "Authorization")!;
  const url = fill(remote.url, { host: `127.0.0.1:${s.relay.port}` }).replace(/^https:/, "http:");
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: fill(header.value!, { token: s.agentToken }) } },
  });
  const client = new Client({ name: "registry-client", version: "1.0.0" });
  await client.connect(transport);
  expect((await client.listTools()).tools.map((t) => t.name)).toContain("ask_question");
  await client.close();
});
