// Refused tokens are counted per client address; past twenty a minute, that address's refused
// tokens get 429. A valid token is never refused for anyone's failures: locally every client is
// 127.0.0.1, and behind a proxy every client would be the proxy.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Agent } from "../support/agent.ts";
import { EventSocket } from "../support/person.ts";
import { assertResponse } from "../support/contract.ts";
import { scene, type BareScene } from "../support/scene.ts";

// Each relay here refuses 127.0.0.1's (or a forwarded address's) guesses for a minute once it is done.
let direct: BareScene;
let proxied: BareScene;
beforeAll(async () => {
  [direct, proxied] = await Promise.all([scene({ client: false }), scene({ client: false, env: { LOOPBACK_TRUSTED_PROXIES: "127.0.0.1/8" } })]);
});
afterAll(async () => {
  await direct.dispose();
  await proxied.dispose();
});

async function guess(s: BareScene, n: number, headers: Record<string, string> = {}) {
  const res = await s.person.api("GET", "/snapshot", { token: `lbp_guess-${n}-${crypto.randomUUID()}`, headers });
  // Revision 3 declares the 429 every route behind a token may answer.
  if (res.status === 429) assertResponse("3", "GET", "/snapshot", 429, res.body);
  return [res.status, res.body.code];
}

async function everyWayIn(s: BareScene, headers: Record<string, string> = {}) {
  const rest = await s.person.api("GET", "/whoami", { headers });
  const ticket = await s.person.api("POST", "/events/tickets", { headers });
  const socket = await EventSocket.open(s.relay.url, ["loopback.v1"], { Authorization: `Bearer ${s.person.token}`, ...headers });
  const snapshot = await socket.next((f) => f.type === "snapshot");
  socket.close();
  const agent = await Agent.connect(s.relay.url, s.agentToken);
  const tools = (await agent.client.listTools()).tools.length;
  await agent.close();
  return { rest: rest.status, ticket: ticket.status, socket: snapshot.type, mcpTools: tools > 0 };
}
const LET_IN = { rest: 200, ticket: 201, socket: "snapshot" as const, mcpTools: true };

test("past twenty refused tokens a minute, an address's guesses get 429, and valid tokens from it still get in everywhere", async () => {
  // Requests without any token are not guesses.
  for (let i = 0; i < 25; i++) expect((await direct.person.api("GET", "/whoami", { token: null })).body.code).toBe("auth.missing");
  for (let i = 0; i < 20; i++) expect([i, ...(await guess(direct, i))]).toEqual([i, 401, "auth.invalid"]);
  expect(await guess(direct, 20)).toEqual([429, "auth.rate_limited"]);
  const mcpGuess = await fetch(`${direct.relay.url}/mcp`, { method: "POST", headers: { Authorization: "Bearer lba_guess", "Content-Type": "application/json" }, body: "{}" });
  expect(mcpGuess.status).toBe(429);

  expect(await everyWayIn(direct)).toEqual(LET_IN);
  // Still limited afterwards: a valid token does not reset the guesser's count.
  expect(await guess(direct, 21)).toEqual([429, "auth.rate_limited"]);
});

test("without a trusted proxy, X-Forwarded-For is not believed: a guesser cannot name itself a fresh address", async () => {
  // `direct` refuses 127.0.0.1's guesses now; an address of the guesser's choosing changes nothing.
  expect(await guess(direct, 22, { "X-Forwarded-For": "198.51.100.7" })).toEqual([429, "auth.rate_limited"]);
});

test("behind a trusted proxy, guesses are counted per forwarded client: one client's guessing limits no other", async () => {
  const guesser = { "X-Forwarded-For": "203.0.113.9" };
  const other = { "X-Forwarded-For": "198.51.100.7" };
  for (let i = 0; i < 20; i++) expect([i, ...(await guess(proxied, i, guesser))]).toEqual([i, 401, "auth.invalid"]);
  expect(await guess(proxied, 20, guesser)).toEqual([429, "auth.rate_limited"]);
  // A chain ending in the guesser, through another trusted hop, is the guesser.
  expect(await guess(proxied, 21, { "X-Forwarded-For": "203.0.113.9, 127.0.0.2" })).toEqual([429, "auth.rate_limited"]);
  expect(await guess(proxied, 22, other)).toEqual([401, "auth.invalid"]);
  // The proxy's own address has not been blamed for what it forwarded.
  expect(await guess(proxied, 23)).toEqual([401, "auth.invalid"]);
  expect(await everyWayIn(proxied, guesser)).toEqual(LET_IN);
});

test("a relay with a malformed LOOPBACK_TRUSTED_PROXIES refuses to start and names the variable", async () => {
  const { RelayProcess } = await import("../support/relay-process.ts");
  const relay = new RelayProcess({ env: { LOOPBACK_TRUSTED_PROXIES: "not-an-address" } });
  const failed = await relay.start().then(() => "started", (e: Error) => e.message);
  await relay.dispose();
  expect(failed).toContain("LOOPBACK_TRUSTED_PROXIES");
});

