import { afterAll, beforeAll, expect, test } from "bun:test";
import { Agent } from "../support/agent.ts";
import { Person } from "../support/person.ts";
import { RelayProcess } from "../support/relay-process.ts";
import { assertNoInternalErrors } from "../support/scene.ts";

let relay: RelayProcess;
const minted: string[] = [];

beforeAll(async () => {
  relay = await new RelayProcess().start();
});
afterAll(async () => {
  await relay.dispose();
  assertNoInternalErrors(relay.log);
});

const TOKEN = /^lb[pa]_[A-Za-z0-9_-]{43}$/;

function create(args: string[]): { token: string; tokenId: string; stdout: string } {
  const out = relay.cli(["token", "create", ...args]);
  expect(out.exitCode).toBe(0);
  const lines = out.stdout.trimEnd().split("\n");
  const token = lines.at(-1)!;
  minted.push(token);
  return { token, tokenId: /\b(tok_[0-9a-z]+)\b/.exec(out.stdout)![1], stdout: out.stdout };
}

const whoami = (token: string) => new Person(relay.url, token).api("GET", "/whoami");

test("the first start creates a person with a token for the inbox and one for an agent", async () => {
  const own = /Your token \(for the inbox\):\s+(\S+)/.exec(relay.log)![1];
  const agents = /An agent token \(for MCP\):\s+(\S+)/.exec(relay.log)![1];
  minted.push(own, agents);
  const me = await whoami(own);
  expect([me.status, me.body.space, me.body.actor.name]).toEqual([200, "default", "first"]);
  expect((await whoami(agents)).body.actor).toEqual(me.body.actor);
});

test("token create prints the token alone on its last line, creating the space and person it names", async () => {
  const { token, stdout } = create(["--person", "cy", "--space", "gamma"]);
  expect(token).toMatch(TOKEN);
  expect(token.startsWith("lbp_")).toBe(true);
  expect(stdout).toContain('Created space "gamma".');
  expect(stdout).toContain('Created person cy in space "gamma"');
  const me = await whoami(token);
  expect([me.status, me.body.space, me.body.actor.name]).toEqual([200, "gamma", "cy"]);

  const again = create(["--person", "cy", "--space", "gamma"]);
  expect(again.stdout).not.toContain("Created person cy in");
  expect(again.stdout).not.toContain("Created space");
  expect(again.token).not.toBe(token);
  expect((await whoami(again.token)).body.actor).toEqual(me.body.actor);

  const agent = create(["--person", "cy", "--space", "gamma", "--agent"]);
  expect(agent.token).toMatch(/^lba_/);
  expect(agent.stdout).toContain("/mcp");
  expect((await whoami(agent.token)).body.actor).toEqual(me.body.actor);
  const mcp = await Agent.connect(relay.url, agent.token);
  expect((await mcp.client.listTools()).tools.length).toBeGreaterThan(0);
  await mcp.close();
});

test("token create says so when a name differing only in case makes a new person", async () => {
  const { token, stdout } = create(["--person", "Cy", "--space", "gamma"]);
  expect(stdout).toContain('Created person Cy in space "gamma"');
  expect(stdout).toContain("case included");
  expect((await whoami(token)).body.actor.name).toBe("Cy");
});

test("token list shows every token and never a secret", async () => {
  create(["--person", "dee", "--space", "delta", "--agent"]);
  const { exitCode, stdout } = relay.cli(["token", "list"]);
  expect(exitCode).toBe(0);
  expect(stdout).toContain("delta/dee");
  expect(stdout).toContain("gamma/cy");
  expect(stdout.trim().split("\n")).toHaveLength(minted.length);
  for (const token of minted) {
    expect(stdout).not.toContain(token);
    expect(stdout).not.toContain(new Bun.CryptoHasher("sha256").update(token).digest("hex"));
  }
  expect(stdout).not.toMatch(/lb[pa]_/);
});

test("a revoked token is refused at once, while the relay runs", async () => {
  const { token, tokenId } = create(["--person", "eve"]);
  expect((await whoami(token)).status).toBe(200);
  const revoked = relay.cli(["token", "revoke", tokenId]);
  expect(revoked.exitCode).toBe(0);
  const refused = await whoami(token);
  expect([refused.status, refused.body.code]).toEqual([401, "auth.invalid"]);
  expect(relay.cli(["token", "list"]).stdout).toMatch(new RegExp(`${tokenId} .* revoked `));

  const twice = relay.cli(["token", "revoke", tokenId]);
  expect(twice.exitCode).toBe(2);
  expect(twice.stderr).toContain(tokenId);
});

test("a relay started on a port in use says which port and how to choose another with LOOPBACK_PORT", async () => {
  const held = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const other = new RelayProcess({ env: { LOOPBACK_PORT: String(held.port) } });
  try {
    const out = other.cli(["serve"]);
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toContain(`Port ${held.port} on 127.0.0.1 is in use`);
    expect(out.stderr).toContain(`LOOPBACK_PORT=${held.port + 1}`);
  } finally {
    held.stop(true);
    await other.dispose();
  }
});

test("the CLI refuses what it cannot do, with a non-zero exit", () => {
  expect(relay.cli(["token", "create"]).exitCode).toBe(2);
  expect(relay.cli(["token", "revoke"]).exitCode).toBe(2);
  expect(relay.cli(["token", "revoke", "tok_nothing"]).exitCode).toBe(2);
  const unknown = relay.cli(["token", "mint"]);
  expect(unknown.exitCode).toBe(2);
  expect(unknown.stderr).toContain("token create");
});
