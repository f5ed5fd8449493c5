// An MCP client that can do OAuth, handed a wrong or missing token, follows the relay's 401 into
// discovery (RFC 9728) and must end on an error that says the token is wrong, not on a 404 it
// cannot read. The relay names its protected-resource metadata on every 401 and names no
// authorization server in it: tokens come from `loopback token create`.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { scene, type Scene } from "./mcp-scene.ts";

let s: Scene;
beforeAll(async () => {
  s = await scene();
});
afterAll(() => s.dispose());

/** What an OAuth-capable client keeps: the token it was configured with, and whatever the flow saves. */
class ConfiguredProvider implements OAuthClientProvider {
  redirected?: URL;
  #client?: OAuthClientInformationMixed;
  constructor(private token: string | undefined) {}
  get redirectUrl() {
    return "http://127.0.0.1:9/callback";
  }
  get clientMetadata() {
    return { redirect_uris: [this.redirectUrl], client_name: "oauth-capable test client" };
  }
  clientInformation() {
    return this.#client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.#client = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.token ? { access_token: this.token, token_type: "Bearer" } : undefined;
  }
  saveTokens(tokens: OAuthTokens) {
    this.token = tokens.access_token;
  }
  redirectToAuthorization(url: URL) {
    this.redirected = url;
  }
  saveCodeVerifier() {}
  codeVerifier() {
    return "unused";
  }
}

async function connectWith(provider: OAuthClientProvider, url = `${s.relay.url}/mcp`): Promise<unknown> {
  const client = new Client({ name: "oauth-capable", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  try {
    await client.connect(transport);
    return undefined;
  } catch (e) {
    return e;
  } finally {
    await client.close().catch(() => {});
  }
}

test("an OAuth-capable client with a wrong token reports an invalid token, not a 404", async () => {
  const provider = new ConfiguredProvider("lba_not-a-token-this-relay-knows");
  const error = (await connectWith(provider)) as Error;
  expect(error).toBeInstanceOf(Error);
  expect(String(error)).not.toContain("404");
  expect(error.constructor.name).toBe("InvalidTokenError");
  expect(error.message).toContain("loopback token create");
  expect(provider.redirected).toBeUndefined();
});

test("an OAuth-capable client with no token at all is told the same", async () => {
  const error = (await connectWith(new ConfiguredProvider(undefined))) as Error;
  expect(error.constructor.name).toBe("InvalidTokenError");
  expect(String(error)).not.toContain("404");
});

test("the same client with the relay's token connects as any other", async () => {
  expect(await connectWith(new ConfiguredProvider(s.agentToken))).toBeUndefined();
});

test("every 401 names the protected-resource metadata, with invalid_token only when a token was sent", async () => {
  const mcp = await fetch(`${s.relay.url}/mcp`, { method: "POST", headers: { Authorization: "Bearer wrong", "Content-Type": "application/json" }, body: "{}" });
  expect(mcp.status).toBe(401);
  expect(mcp.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${s.relay.url}/.well-known/oauth-protected-resource/mcp", error="invalid_token"`);
  const rest = await fetch(`${s.relay.url}/api/v1/whoami`);
  expect(rest.status).toBe(401);
  expect(rest.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${s.relay.url}/.well-known/oauth-protected-resource"`);
  const socket = await fetch(`${s.relay.url}/api/v1/events`, { headers: { Upgrade: "websocket", "Sec-WebSocket-Protocol": "loopback.v1, loopback.ticket.nope" } });
  expect(socket.status).toBe(401);
  expect(socket.headers.get("www-authenticate")).toStartWith("Bearer resource_metadata=");
});

test("the metadata names the resource the client dialed and no authorization server", async () => {
  for (const [path, resource] of [
    ["/.well-known/oauth-protected-resource/mcp", `${s.relay.url}/mcp`],
    ["/.well-known/oauth-protected-resource", s.relay.url],
  ]) {
    const res = await fetch(`${s.relay.url}${path}`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({ resource, bearer_methods_supported: ["header"], resource_name: "Loopback relay" });
  }
  // Dialed by its loopback name, the relay names that name: the client compares the two.
  const byName = await fetch(`${s.relay.url}/.well-known/oauth-protected-resource/mcp`, { headers: { Host: `localhost:${s.relay.port}` } });
  expect((await byName.json()).resource).toBe(`http://localhost:${s.relay.port}/mcp`);
  const foreign = await fetch(`${s.relay.url}/.well-known/oauth-protected-resource/mcp`, { headers: { Host: "evil.example.com" } });
  expect((await foreign.json()).resource).toBe(`${s.relay.url}/mcp`);
  // It is not an authorization server, and does not say it is one.
  expect((await fetch(`${s.relay.url}/.well-known/oauth-authorization-server`)).status).toBe(404);
  expect((await fetch(`${s.relay.url}/.well-known/openid-configuration`)).status).toBe(404);
  expect((await fetch(`${s.relay.url}/.well-known/oauth-protected-resource/elsewhere`)).status).toBe(404);
});

test("a person's browser sent to sign in reads how to get a token", async () => {
  const res = await fetch(`${s.relay.url}/authorize?response_type=code&client_id=x`);
  expect(res.status).toBe(400);
  expect(res.headers.get("content-type")).toStartWith("text/plain");
  expect(await res.text()).toContain("loopback token create");
});
