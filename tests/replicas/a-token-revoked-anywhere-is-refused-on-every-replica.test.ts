// `token revoke` writes to the one database the replicas share; no replica keeps a token it has
// seen. From the moment the command returns, every replica refuses the token, its unused event
// tickets and its MCP session; each replica closes the token's open sockets within its revocation
// check. Other tokens carry on, on every replica.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Agent } from "../support/agent.ts";
import { EventSocket, Person } from "../support/person.ts";
import { Replicas } from "../support/replicas.ts";
import { until } from "../support/scene.ts";

const CHECK_S = 0.2;

describe.each([2, 3])("%i replicas on one database", (count) => {
  let r: Replicas;
  let keeper: string;
  beforeAll(async () => {
    r = await Replicas.start(count, { env: { LOOPBACK_REVOCATION_CHECK_S: String(CHECK_S) } });
    keeper = await r.token("ada");
  }, 60_000);
  afterAll(() => r.dispose());

  /** A new token for ada, with its id as `token list` shows it. */
  function mint(agent = false): { token: string; tokenId: string } {
    const out = r.cli(["token", "create", "--person", "ada", ...(agent ? ["--agent"] : [])]);
    expect(out.exitCode).toBe(0);
    return { token: out.stdout.trimEnd().split("\n").at(-1)!, tokenId: /\b(tok_[0-9a-z]+)\b/.exec(out.stdout)![1]! };
  }

  const replicas = () => Array.from({ length: count }, (_, i) => i);

  test("a person's token revoked is refused by every replica at once, and its sockets on every replica close with 4401", async () => {
    const doomed = mint();
    // Every replica has seen the token work: whatever a replica might keep of it, it has.
    for (const i of replicas()) expect((await r.person(doomed.token, i).api("GET", "/whoami")).status).toBe(200);
    const sockets: EventSocket[] = [];
    const tickets: string[] = [];
    for (const i of replicas()) {
      const socket = await r.person(doomed.token, i).socket();
      await socket.next((f) => f.type === "snapshot");
      sockets.push(socket);
      tickets.push((await r.person(doomed.token, i).api("POST", "/events/tickets")).body.ticket);
    }
    const others = await Promise.all(replicas().map((i) => r.person(keeper, i).socket()));

    // Revoked by the CLI, which any replica's host may run: it only writes the database.
    expect(r.cli(["token", "revoke", doomed.tokenId], count - 1).exitCode).toBe(0);
    for (const i of replicas()) {
      const refused = await r.person(doomed.token, i).api("GET", "/whoami");
      expect({ replica: i, status: refused.status, code: refused.body.code }).toEqual({ replica: i, status: 401, code: "auth.invalid" });
      // A ticket issued on one replica before the revocation opens no socket on the next one.
      const ticket = tickets[(i + count - 1) % count];
      const opened = await EventSocket.open(r.urlOf(i), ["loopback.v1", `loopback.ticket.${ticket}`]).then(
        () => 101,
        (e: { status?: number }) => e.status,
      );
      expect({ replica: i, opened }).toEqual({ replica: i, opened: 401 });
    }
    await until(() => sockets.every((s) => s.closed), "the revoked token's socket on every replica is closed", 5_000);
    for (const socket of sockets) expect(socket.closedWith).toEqual({ code: 4401, reason: "token revoked" });
    // The other token's sockets stay open, and the token works everywhere.
    for (const i of replicas()) {
      expect(others[i].closed).toBe(false);
      expect((await r.person(keeper, i).api("GET", "/whoami")).status).toBe(200);
      others[i].close();
    }
  }, 30_000);

  test("an agent's token revoked ends its MCP session on every replica, however many the session touched", async () => {
    const doomed = mint(true);
    const agent = await r.agent(doomed.token, 0);
    // The same session, by its id, on every replica: it is in the database, not in one process.
    const sessionId = agent.transport.sessionId!;
    const list = (i: number) =>
      fetch(`${r.urlOf(i)}/mcp`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${doomed.token}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
          "mcp-session-id": sessionId,
          "mcp-protocol-version": agent.transport.protocolVersion ?? "2025-11-25",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    for (const i of replicas()) expect((await list(i)).status).toBe(200);
    expect(r.cli(["token", "revoke", doomed.tokenId]).exitCode).toBe(0);
    for (const i of replicas()) expect({ replica: i, status: (await list(i)).status }).toEqual({ replica: i, status: 401 });
    // A client connecting afresh with it is refused on every replica too.
    for (const i of replicas()) await expect(Agent.connect(r.urlOf(i), doomed.token)).rejects.toThrow();
    await agent.close().catch(() => {});
    // The person's own token is untouched.
    expect((await new Person(r.urlOf(count - 1), keeper).api("GET", "/whoami")).status).toBe(200);
  }, 30_000);
});
