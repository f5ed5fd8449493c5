// `token revoke` runs in another process than the relay. Within the revocation check interval
// (LOOPBACK_REVOCATION_CHECK_S), the revoked token's open event sockets are closed with 4401
// "token revoked", and an event or upload ticket issued to it before is refused at once. Other
// tokens carry on.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { EventSocket, Person } from "../support/person.ts";
import { Agent } from "../support/agent.ts";
import { question } from "./open-ask.ts";
import { PNG, put, uploadTicket } from "./upload-image.ts";
import { scene, until, type Scene } from "../support/scene.ts";

const CHECK_S = 0.2;
let s: Scene;
beforeAll(async () => {
  s = await scene({ env: { LOOPBACK_REVOCATION_CHECK_S: String(CHECK_S) } });
});
afterAll(() => s.dispose());

/** A new person token for ada, with its id as `token list` shows it. */
function mint(): { person: Person; tokenId: string } {
  const out = s.relay.cli(["token", "create", "--person", "ada"]);
  expect(out.exitCode).toBe(0);
  return { person: new Person(s.relay.url, out.stdout.trimEnd().split("\n").at(-1)!), tokenId: /\b(tok_[0-9a-z]+)\b/.exec(out.stdout)![1]! };
}

test("revoking a token closes its open sockets with 4401, and other tokens' sockets stream on", async () => {
  const doomed = mint();
  const byTicket = await doomed.person.socket();
  const byHeader = await EventSocket.open(s.relay.url, ["loopback.v1"], { Authorization: `Bearer ${doomed.person.token}` });
  const other = await s.person.socket();
  for (const socket of [byTicket, byHeader, other]) await socket.next((f) => f.type === "snapshot");

  expect(s.relay.cli(["token", "revoke", doomed.tokenId]).exitCode).toBe(0);
  await until(() => byTicket.closed && byHeader.closed, "both of the revoked token's sockets are closed", 5000);
  for (const socket of [byTicket, byHeader]) expect(socket.closedWith).toEqual({ code: 4401, reason: "token revoked" });

  // A new ask reaches the other token's socket and not the revoked one's.
  const { ask } = await question(s.person, s.agent);
  const opened = await other.next((f) => f.type === "ask.opened" && f.ask.id === ask.id);
  expect(opened.type).toBe("ask.opened");
  expect(other.closed).toBe(false);
  expect(byTicket.frames.concat(byHeader.frames).some((f) => f.type === "ask.opened")).toBe(false);
  other.close();
});

test("a ticket issued before its token was revoked no longer opens the socket, at once", async () => {
  const doomed = mint();
  const unused = (await doomed.person.api("POST", "/events/tickets")).body.ticket as string;
  expect(s.relay.cli(["token", "revoke", doomed.tokenId]).exitCode).toBe(0);
  const refused = await EventSocket.open(s.relay.url, ["loopback.v1", `loopback.ticket.${unused}`]).then(
    () => 101,
    (e: { status?: number }) => e.status,
  );
  expect(refused).toBe(401);
  // And the token itself gets no new one.
  expect((await doomed.person.api("POST", "/events/tickets")).body.code).toBe("auth.invalid");
});

test("an upload ticket issued to an agent token that is then revoked takes no image", async () => {
  const out = s.relay.cli(["token", "create", "--person", "ada", "--agent"]);
  const tokenId = /\b(tok_[0-9a-z]+)\b/.exec(out.stdout)![1]!;
  const agent = await Agent.connect(s.relay.url, out.stdout.trimEnd().split("\n").at(-1)!);
  const ticket = await uploadTicket(agent);
  await agent.close();
  expect(s.relay.cli(["token", "revoke", tokenId]).exitCode).toBe(0);
  const refused = await put(ticket, PNG);
  expect([refused.status, refused.body.code]).toEqual([410, "upload.expired"]);
  expect(refused.body.message).toContain("revoked");
});
