// A person's token names a device's endpoint, and any ask then makes the relay connect to it: the
// relay must never be turned on its own machine or networks. Every form of a loopback, private,
// link-local, CGNAT, multicast, unique-local or unspecified address is refused when a device is
// added, literally or through a name our own DNS server resolves; a name that resolves elsewhere at
// push time (DNS rebinding) reaches nothing; a push service's redirect is never followed. A raw TCP
// listener stands where each of those would land, and counts every connection it gets.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { TCPSocketListener } from "bun";
import { DnsServer } from "../support/dns-server.ts";
import { PushReceiver } from "../support/push-receiver.ts";
import { newProject, scene, until, type Scene } from "../support/scene.ts";
import { question } from "../relay/open-ask.ts";

setDefaultTimeout(30_000);

/** Whatever connects here, TLS or plain HTTP, is counted and dropped. */
function trap(hostname: string): TCPSocketListener<undefined> & { connections: number } {
  const counted = { connections: 0 };
  const listener = Bun.listen<undefined>({ hostname, port: 0, socket: { open: (s) => void (counted.connections++, s.end()), data() {} } });
  return Object.assign(listener, { get connections() { return counted.connections; } });
}

let dns: DnsServer;
let push: PushReceiver;
let trap4: ReturnType<typeof trap>;
let trap6: ReturnType<typeof trap>;
/** A relay as shipped: any push service on the public internet, names resolved through `dns`. */
let open: Scene;
/** A relay whose operator lists one push service, on loopback: only it is pushed to. */
let listed: Scene;

beforeAll(async () => {
  dns = await DnsServer.start();
  trap4 = trap("127.0.0.1");
  trap6 = trap("::1");
  push = await PushReceiver.start(async () => (await listed.person.api("GET", "/push/key")).body.publicKey);
  open = await scene({ env: { LOOPBACK_PUSH_DNS: dns.address, NODE_EXTRA_CA_CERTS: push.caFile } });
  listed = await scene({ env: { LOOPBACK_PUSH_HOSTS: push.host, LOOPBACK_PUSH_DNS: dns.address, NODE_EXTRA_CA_CERTS: push.caFile, LOOPBACK_MAX_DEVICES_PER_PERSON: "6" } });
});
afterAll(async () => {
  await open?.dispose();
  await listed?.dispose();
  push?.stop();
  dns?.stop();
  trap4?.stop(true);
  trap6?.stop(true);
});

const keys = () => push.subscribe().keys;

async function addDevice(s: Scene, endpoint: string) {
  return s.person.api("POST", "/push/devices", { body: { endpoint, keys: keys(), name: "Phone" } });
}

describe("a relay pushing to the public internet", () => {
  test("refuses every address form of this machine and its networks, literally or through a name", async () => {
    const p4 = trap4.port;
    const p6 = trap6.port;
    dns.names.set("loop.evil.test", ["127.0.0.1"]);
    dns.names.set("metadata.evil.test", ["169.254.169.254"]);
    dns.names.set("lan.evil.test", ["192.168.1.10"]);
    dns.names.set("v6loop.evil.test", ["::1"]);
    dns.names.set("mapped.evil.test", ["::ffff:127.0.0.1"]);
    dns.names.set("ula.evil.test", ["fd00::1"]);
    // One public address beside a loopback one: the connection could take either.
    dns.names.set("mixed.evil.test", ["93.184.216.34", "127.0.0.1"]);
    const endpoints = [
      `https://127.0.0.1:${p4}/push`,
      `https://127.1:${p4}/push`,
      `https://2130706433:${p4}/push`,
      `https://0x7f.1:${p4}/push`,
      `https://0x7f000001:${p4}/push`,
      `https://0177.0.0.1:${p4}/push`,
      `https://017700000001:${p4}/push`,
      `https://127.000.000.001:${p4}/push`,
      `https://localhost:${p4}/push`,
      `https://LOCALHOST.:${p4}/push`,
      `https://push.localhost:${p4}/push`,
      `https://0.0.0.0:${p4}/push`,
      `https://0:${p4}/push`,
      `https://[::1]:${p6}/push`,
      `https://[0:0:0:0:0:0:0:1]:${p6}/push`,
      `https://[::ffff:127.0.0.1]:${p4}/push`,
      `https://[::ffff:7f00:1]:${p4}/push`,
      `https://[::127.0.0.1]:${p4}/push`,
      `https://[64:ff9b::7f00:1]:${p4}/push`,
      `https://[::]:${p6}/push`,
      "https://10.0.0.1/push",
      "https://172.16.5.4/push",
      "https://192.168.0.1/push",
      "https://169.254.169.254/latest/meta-data/",
      "https://100.64.0.1/push",
      "https://224.0.0.1/push",
      "https://255.255.255.255/push",
      "https://[fe80::1]/push",
      "https://[fc00::1]/push",
      "https://[fd12:3456::1]/push",
      "https://[ff02::1]/push",
      `https://loop.evil.test:${p4}/push`,
      "https://metadata.evil.test/latest/meta-data/",
      "https://lan.evil.test/push",
      `https://v6loop.evil.test:${p6}/push`,
      `https://mapped.evil.test:${p4}/push`,
      "https://ula.evil.test/push",
      `https://mixed.evil.test:${p4}/push`,
      "https://nowhere.evil.test/push",
    ];
    const answers = [];
    for (const endpoint of endpoints) {
      const res = await addDevice(open, endpoint);
      answers.push([endpoint, res.status, res.body?.code]);
    }
    expect(answers).toEqual(endpoints.map((e) => [e, 422, "push.endpoint_refused"]));
    // The names were really resolved, through the relay's DNS setting.
    for (const name of ["loop.evil.test", "metadata.evil.test", "v6loop.evil.test", "mixed.evil.test"]) expect(dns.asked).toContain(name);
    expect((await open.person.api("GET", "/push/devices")).body.items).toEqual([]);
    expect([trap4.connections, trap6.connections]).toEqual([0, 0]);
  });

  test("a name that resolves to loopback by push time (DNS rebinding) is not connected to", async () => {
    dns.names.set("rebind.evil.test", ["93.184.216.34"]);
    const added = await addDevice(open, `https://rebind.evil.test:${trap4.port}/push/x`);
    expect(added.status).toBe(201);
    dns.names.set("rebind.evil.test", ["127.0.0.1"]);
    const askedBefore = dns.asked.filter((n) => n === "rebind.evil.test").length;
    const q = await question(open.person, open.agent, { project: newProject() });
    await until(() => open.relay.log.includes("push: could not send"), "the relay gives up on the push");
    expect(dns.asked.filter((n) => n === "rebind.evil.test").length).toBeGreaterThan(askedBefore);
    expect(trap4.connections).toBe(0);
    await open.person.reply(q.ask.id, { outcome: "dismissed" });
  });
});

describe("a relay with a list of push services", () => {
  test("refuses any host it does not list, public or not", async () => {
    for (const endpoint of ["https://93.184.216.34/push", `https://127.0.0.1:${trap4.port}/push`, "https://fcm.googleapis.com/fcm/send/x"]) {
      const res = await addDevice(listed, endpoint);
      expect([endpoint, res.status, res.body.code]).toEqual([endpoint, 422, "push.endpoint_refused"]);
    }
  });

  test("never follows a push service's redirect, to https or plain http", async () => {
    const locations = [
      [301, `http://127.0.0.1:${trap4.port}/moved`],
      [302, `https://127.0.0.1:${trap4.port}/found`],
      [307, `http://[::1]:${trap6.port}/temporary`],
      [308, `https://127.0.0.1:${trap4.port}/permanent`],
    ] as const;
    const redirecting = [];
    for (const [status, location] of locations) {
      const sub = push.subscribe();
      push.answer(sub.id, status, { Location: location });
      expect((await listed.person.api("POST", "/push/devices", { body: { endpoint: sub.endpoint, keys: sub.keys, name: `${status}` } })).status).toBe(201);
      redirecting.push(sub);
    }
    const good = push.subscribe();
    expect((await listed.person.api("POST", "/push/devices", { body: { endpoint: good.endpoint, keys: good.keys, name: "good" } })).status).toBe(201);
    const q = await question(listed.person, listed.agent, { project: newProject() });
    await push.waitFor(good.id);
    for (const sub of redirecting) await until(() => push.attempts(sub.id) === 1, `the push to ${sub.id} arrived`);
    for (const [status] of locations) await until(() => listed.relay.log.includes(`answered ${status}`), `the relay saw the ${status}`);
    expect([trap4.connections, trap6.connections]).toEqual([0, 0]);
    await listed.person.reply(q.ask.id, { outcome: "dismissed" });
  });

  test("keeps at most the configured number of devices per person", async () => {
    const held = (await listed.person.api("GET", "/push/devices")).body.items.length;
    const subs = [];
    for (let i = held; i < 6; i++) {
      const sub = push.subscribe();
      expect((await listed.person.api("POST", "/push/devices", { body: { endpoint: sub.endpoint, keys: sub.keys, name: `n${i}` } })).status).toBe(201);
      subs.push(sub);
    }
    const extra = push.subscribe();
    const refused = await listed.person.api("POST", "/push/devices", { body: { endpoint: extra.endpoint, keys: extra.keys, name: "one too many" } });
    expect([refused.status, refused.body.code]).toEqual([429, "push.too_many_devices"]);
    // A browser subscribing again is the device it was, not one more.
    const again = subs.at(-1)!;
    expect((await listed.person.api("POST", "/push/devices", { body: { endpoint: again.endpoint, keys: again.keys, name: "renamed" } })).status).toBe(201);
  });
});
