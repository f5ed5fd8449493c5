// The relay's Web Push path end to end: a real relay process pushes to a push service of our own
// over TLS, which decrypts each push with the subscription's keys and checks the VAPID signature
// against the relay's published key.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { structured } from "../support/agent.ts";
import { PushReceiver } from "../support/push-receiver.ts";
import { askWhen, newProject, running, scene, until, type Scene } from "../support/scene.ts";
import { openAsk, question, review } from "./open-ask.ts";

setDefaultTimeout(30_000);

let s: Scene;
let push: PushReceiver;

beforeAll(async () => {
  push = await PushReceiver.start(async () => (await s.person.api("GET", "/push/key")).body.publicKey);
  s = await scene({ env: { NODE_EXTRA_CA_CERTS: push.caFile, LOOPBACK_PUSH_HOSTS: push.host, LOOPBACK_PUBLIC_URL: "https://loopback.example.test" } });
});
afterAll(async () => {
  await s?.dispose();
  push?.stop();
});

async function device(loudness?: unknown, name = "Phone · Chrome") {
  const sub = push.subscribe();
  const res = await s.person.api("POST", "/push/devices", { body: { endpoint: sub.endpoint, keys: sub.keys, name, ...(loudness ? { loudness } : {}) } });
  expect(res.status).toBe(201);
  return { sub, device: res.body };
}

const hhmm = (d: Date) => d.toISOString().slice(11, 16);

describe("pushes", () => {
  test("a new question reaches the device encrypted to its keys, signed by the relay, with its TTL and urgency", async () => {
    const { sub } = await device();
    const project = newProject();
    const q = await question(s.person, s.agent, { project, question: "Ship **the fix** today?\n\nIt touches `auth`.", options: [{ label: "Ship it" }, { label: "Wait" }] });
    const [got] = await push.waitFor(sub.id);
    expect(got!.notice).toEqual({
      askId: q.ask.id,
      kind: "question",
      project,
      reason: "opened",
      title: "Ship **the fix** today?",
      options: ["Ship it", "Wait"],
      url: `https://loopback.example.test/inbox/#/ask/${q.ask.id}`,
    });
    expect(got!.headers.ttl).toBe(String(12 * 60 * 60));
    expect(got!.headers.urgency).toBe("high");
    expect(got!.headers.topic).toBe(q.ask.id.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 32));
    expect(got!.vapid.sub).toBe("https://loopback.example.test");
    expect(push.refused).toEqual([]);
    await s.person.reply(q.ask.id, { outcome: "dismissed" });
  });

  test("a review's push names its title and never carries its code, diff or summary", async () => {
    const { sub } = await device();
    const r = await review(s.person, s.agent, {
      title: "Rotate the session keys",
      summary: "SECRET-SUMMARY",
      content: [
        { type: "code", code: "const key = 'SECRET-CODE';", language: "ts" },
        { type: "diff", diff: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+SECRET-DIFF\n" },
      ],
    });
    const [got] = await push.waitFor(sub.id);
    expect(got!.notice).toMatchObject({ askId: r.ask.id, kind: "review", title: "Rotate the session keys", reason: "opened" });
    expect(got!.notice.options).toBeUndefined();
    expect(JSON.stringify(got!.notice)).not.toMatch(/SECRET/);
    await s.person.reply(r.ask.id, { outcome: "approved" });
  });

  test("the agent's answer to a follow-up is pushed once, however often an agent starts and stops waiting", async () => {
    const { sub } = await device();
    const q = await question(s.person, s.agent);
    await push.waitFor(sub.id, 1);
    await s.person.reply(q.ask.id, { outcome: "follow_up", question: "Which is faster?" });
    expect(structured(await q.call).reply.outcome).toBe("follow_up");
    // The answer's call waits for the person again: the ask is announced as followed, not pushed anew.
    const answering = running(s.agent.call("answer_follow_up", { askId: q.ask.id, answer: "B." }));
    const pushes = await push.waitFor(sub.id, 2);
    expect(pushes[1]!.notice).toMatchObject({ askId: q.ask.id, reason: "answered", title: "Which one?" });
    await askWhen(s.person, q.ask.id, (a) => a.waiting && a.status === "awaiting_human", "the agent waits for the person");
    await s.person.reply(q.ask.id, { outcome: "answered", selected: ["B"] });
    expect(structured(await answering).reply).toEqual({ outcome: "answered", selected: ["B"] });
    expect(push.for(sub.id).length).toBe(2);
  });

  for (const status of [404, 410]) {
    test(`a subscription the push service reports gone (${status}) is deleted`, async () => {
      const { sub, device: d } = await device();
      push.answer(sub.id, status);
      const q = await question(s.person, s.agent);
      await until(async () => !(await s.person.api("GET", "/push/devices")).body.items.some((i: { id: string }) => i.id === d.id), "the device is no longer listed", 10_000, 50);
      await s.person.reply(q.ask.id, { outcome: "dismissed" });
    });
  }

  test("nothing is pushed about projects a device did not pick, or in its quiet hours", async () => {
    const picked = newProject();
    const now = new Date();
    const { sub: picky } = await device({ projects: [picked] }, "Tablet");
    const { sub: asleep } = await device({ quietHours: { from: hhmm(new Date(now.getTime() - 3600_000)), until: hhmm(new Date(now.getTime() + 3600_000)), timeZone: "UTC" } }, "Laptop");
    const { sub: loud } = await device(undefined, "Desk");
    const other = await question(s.person, s.agent);
    await push.waitFor(loud.id, 1);
    const mine = await openAsk(s.person, s.agent, "ask_question", { question: "Picked?", project: picked });
    const [got] = await push.waitFor(picky.id, 1);
    await push.waitFor(loud.id, 2);
    expect(got!.notice.askId).toBe(mine.ask.id);
    expect(push.for(picky.id).length).toBe(1);
    expect(push.for(asleep.id)).toEqual([]);
    for (const a of [other, mine]) await s.person.reply(a.ask.id, { outcome: "dismissed" });
  });
});

describe("devices", () => {
  test("are listed by name and push service, never by endpoint, and removed by the person", async () => {
    const { sub, device: d } = await device(undefined, "Pixel · Chrome");
    expect(d).toMatchObject({ name: "Pixel · Chrome", service: new URL(sub.endpoint).host, loudness: {} });
    const listed = (await s.person.api("GET", "/push/devices")).body.items;
    expect(listed.map((i: { id: string }) => i.id)).toContain(d.id);
    expect(JSON.stringify(listed)).not.toContain(sub.endpoint);
    expect((await s.person.api("DELETE", `/push/devices/${d.id}`)).status).toBe(204);
    expect((await s.person.api("DELETE", `/push/devices/${d.id}`)).body.code).toBe("push.device_not_found");
  });

  test("subscribing the same endpoint again renews the device instead of adding one", async () => {
    const { sub, device: d } = await device(undefined, "Old name");
    const again = await s.person.api("POST", "/push/devices", { body: { endpoint: sub.endpoint, keys: sub.keys, name: "New name" } });
    expect(again.body).toMatchObject({ id: d.id, name: "New name" });
    const named = (await s.person.api("GET", "/push/devices")).body.items.filter((i: { id: string }) => i.id === d.id);
    expect(named.map((i: { name: string }) => i.name)).toEqual(["New name"]);
  });

  test("loudness is stored per device and checked", async () => {
    const { device: d } = await device();
    const set = await s.person.api("PUT", `/push/devices/${d.id}/loudness`, { body: { projects: ["web"], quietHours: { from: "22:00", until: "07:00", timeZone: "Europe/Berlin" } } });
    expect(set.status).toBe(200);
    expect((await s.person.api("GET", "/push/devices")).body.items.find((i: { id: string }) => i.id === d.id).loudness).toEqual({
      projects: ["web"],
      quietHours: { from: "22:00", until: "07:00", timeZone: "Europe/Berlin" },
    });
    const bad = [
      [{ quietHours: { from: "22:00", until: "07:00", timeZone: "Mars/Olympus" } }, 422, "push.time_zone_unknown"],
      [{ quietHours: { from: "25:00", until: "07:00", timeZone: "UTC" } }, 422, "body.invalid"],
      [{ projects: "web" }, 422, "body.invalid"],
    ] as const;
    for (const [body, status, code] of bad) {
      const res = await s.person.api("PUT", `/push/devices/${d.id}/loudness`, { body });
      expect([res.status, res.body.code]).toEqual([status, code]);
    }
    expect((await s.person.api("PUT", "/push/devices/dev_nope/loudness", { body: {} })).body.code).toBe("push.device_not_found");
  });

  test("only https push services and real keys are taken, and only from a person's token", async () => {
    const sub = push.subscribe();
    const cases = [
      [{ ...sub, endpoint: sub.endpoint.replace("https:", "http:") }, 422, "push.endpoint_invalid"],
      [{ ...sub, endpoint: "not a url" }, 422, "push.endpoint_invalid"],
      [{ ...sub, keys: { ...sub.keys, p256dh: "AAAA" } }, 422, "push.keys_invalid"],
      [{ ...sub, keys: { ...sub.keys, auth: "c2hvcnQ" } }, 422, "push.keys_invalid"],
      // 65 bytes in the uncompressed form, but no point on the curve.
      [{ ...sub, keys: { ...sub.keys, p256dh: Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString("base64url") } }, 422, "push.keys_invalid"],
      [{ ...sub, expirationTime: "tomorrow" }, 422, "body.invalid"],
      [{ ...sub, expirationTime: -1 }, 422, "body.invalid"],
      [{ ...sub, name: "" }, 422, "body.invalid"],
    ] as const;
    for (const [body, status, code] of cases) {
      const { id: _, ...rest } = body as typeof sub;
      const res = await s.person.api("POST", "/push/devices", { body: { name: "x", ...rest } });
      expect([res.status, res.body.code]).toEqual([status, code]);
    }
    const agent = await s.person.api("POST", "/push/devices", { token: s.agentToken, body: { endpoint: sub.endpoint, keys: sub.keys, name: "x" } });
    expect([agent.status, agent.body.code]).toEqual([401, "auth.person_required"]);
  });

  test("a subscription as PushSubscription.toJSON() gives it, expirationTime included, is taken", async () => {
    for (const expirationTime of [null, Date.now() + 86_400_000]) {
      const sub = push.subscribe();
      const res = await s.person.api("POST", "/push/devices", { body: { endpoint: sub.endpoint, expirationTime, keys: sub.keys, name: "Firefox" } });
      expect(res.status).toBe(201);
    }
  });

  test("another person cannot see or remove a device", async () => {
    const { device: d } = await device();
    const eve = await s.relay.token("eve");
    expect((await s.person.api("GET", "/push/devices", { token: eve })).body.items).toEqual([]);
    expect((await s.person.api("DELETE", `/push/devices/${d.id}`, { token: eve })).body.code).toBe("push.device_not_found");
  });

  test("an endpoint known from another person's device, in another space, never takes that device over", async () => {
    const { sub, device: d } = await device(undefined, "Ada's phone");
    const eve = await s.relay.token("eve", { space: "elsewhere" });
    const theirs = push.subscribe();
    const taken = await s.person.api("POST", "/push/devices", { token: eve, body: { endpoint: sub.endpoint, keys: theirs.keys, name: "Eve's" } });
    expect(taken.status).toBe(201);
    expect(taken.body.id).not.toBe(d.id);
    const adas = (await s.person.api("GET", "/push/devices")).body.items.find((i: { id: string }) => i.id === d.id);
    expect(adas).toMatchObject({ id: d.id, name: "Ada's phone" });
    // Still pushed with ada's own keys: the receiver decrypts with them, or refuses the push.
    const before = push.for(sub.id).length;
    const q = await question(s.person, s.agent);
    await push.waitFor(sub.id, before + 1);
    expect(push.refused).toEqual([]);
    await s.person.reply(q.ask.id, { outcome: "dismissed" });
  });

  test("the VAPID key is made once and kept across restarts", async () => {
    const before = (await s.person.api("GET", "/push/key")).body.publicKey;
    expect(Buffer.from(before, "base64url").length).toBe(65);
    await s.relay.restart();
    expect((await s.person.api("GET", "/push/key")).body.publicKey).toBe(before);
  });
});
