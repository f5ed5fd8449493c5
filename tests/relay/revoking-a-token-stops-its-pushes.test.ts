// A device belongs to the token that registered it: revoking the token (a lost phone's) removes the
// device in the same commit, so nothing more is pushed to it, while the person's other devices go on.
// The operator sees and removes devices with the CLI.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { PushReceiver } from "../support/push-receiver.ts";
import { newProject, scene, type Scene } from "../support/scene.ts";
import { question } from "./open-ask.ts";

setDefaultTimeout(30_000);

let s: Scene;
let push: PushReceiver;

beforeAll(async () => {
  push = await PushReceiver.start(async () => (await s.person.api("GET", "/push/key")).body.publicKey);
  s = await scene({ env: { NODE_EXTRA_CA_CERTS: push.caFile, LOOPBACK_PUSH_HOSTS: push.host } });
});
afterAll(async () => {
  await s?.dispose();
  push?.stop();
});

async function device(name: string, token?: string) {
  const sub = push.subscribe();
  const res = await s.person.api("POST", "/push/devices", { token, body: { endpoint: sub.endpoint, keys: sub.keys, name } });
  expect(res.status).toBe(201);
  return { sub, id: res.body.id as string };
}

/** The id of ada's `nth` person token in `token list`'s lines (oldest first). */
const tokenIdOf = (listing: string, nth: number) => listing.split("\n").filter((l) => l.includes("person  default/ada ")).at(nth)!.split(/\s+/)[0]!;

test("a revoked token's devices are removed and pushed nothing, the person's other devices still are", async () => {
  const phoneToken = await s.relay.token("ada");
  const phoneTokenId = tokenIdOf(s.relay.cli(["token", "list"]).stdout, -1);
  const phone = await device("Lost phone", phoneToken);
  const desk = await device("Desk");
  expect(s.relay.cli(["token", "revoke", phoneTokenId]).exitCode).toBe(0);

  const asks = [];
  for (let i = 1; i <= 2; i++) {
    asks.push(await question(s.person, s.agent, { project: newProject() }));
    // The second push to the desk comes after every push of the first ask was made.
    await push.waitFor(desk.sub.id, i);
  }
  expect(push.attempts(phone.sub.id)).toBe(0);
  expect((await s.person.api("GET", "/push/devices")).body.items.map((d: { id: string }) => d.id)).toEqual([desk.id]);
  expect(s.relay.cli(["device", "list"]).stdout).not.toContain(phone.id);
  for (const q of asks) await s.person.reply(q.ask.id, { outcome: "dismissed" });
});

test("the operator lists a person's devices and removes one by its id", async () => {
  const d = await device("Old tablet");
  const listed = s.relay.cli(["device", "list"]).stdout;
  const tokenId = tokenIdOf(s.relay.cli(["token", "list"]).stdout, 0);
  expect(listed).toContain(`${d.id}  default/ada  "Old tablet"  ${push.host}  token ${tokenId}  created `);
  expect(listed).not.toContain("/push/");
  const removed = s.relay.cli(["device", "remove", d.id]);
  expect([removed.exitCode, removed.stdout.trim()]).toEqual([0, `Removed ${d.id}`]);
  expect((await s.person.api("GET", "/push/devices")).body.items.map((i: { id: string }) => i.id)).not.toContain(d.id);
  const again = s.relay.cli(["device", "remove", d.id]);
  expect([again.exitCode, again.stderr.trim()]).toEqual([2, `No device ${d.id}`]);
});
