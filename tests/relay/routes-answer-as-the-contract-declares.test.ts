import { afterAll, beforeAll, expect, test } from "bun:test";
import { scene, type Scene } from "../support/scene.ts";
import { question } from "./open-ask.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/relay-process.ts";

let s: Scene;
beforeAll(async () => {
  s = await scene({ space: "lab" });
});
afterAll(() => s.dispose());

const STACK_TRACE = /\bat .+:\d+:\d+|\.ts:\d+/;

test("whoami names the caller's space and person", async () => {
  const { status, body } = await s.person.api("GET", "/whoami");
  expect(status).toBe(200);
  expect(body.space).toBe("lab");
  expect(body.actor.name).toBe("ada");
  expect(body.actor.id).toMatch(/^psn_/);
});

test("an event ticket is issued with 201 and expires within a minute", async () => {
  const before = Date.now();
  const { status, body } = await s.person.api("POST", "/events/tickets");
  expect(status).toBe(201);
  expect(body.ticket).toBeString();
  const expires = Date.parse(body.expiresAt);
  expect(expires).toBeGreaterThan(before);
  expect(expires).toBeLessThanOrEqual(Date.now() + 60_000);
});

test("every route refuses a request without a token, or with an unknown one, with 401", async () => {
  const routes: [string, string][] = [
    ["GET", "/whoami"],
    ["POST", "/events/tickets"],
    ["GET", "/snapshot"],
    ["GET", "/asks"],
    ["GET", "/asks/ask_x"],
    ["POST", "/asks/ask_x/reply"],
    ["GET", "/files/upl_x"],
    ["GET", "/push/key"],
    ["GET", "/push/devices"],
    ["POST", "/push/devices"],
    ["PUT", "/push/devices/dev_x/loudness"],
    ["DELETE", "/push/devices/dev_x"],
  ];
  for (const [method, path] of routes) {
    const body = method === "POST" && path.endsWith("reply") ? { outcome: "dismissed" } : undefined;
    const missing = await s.person.api(method, path, { token: null, body });
    expect([path, missing.status, missing.body.code]).toEqual([path, 401, "auth.missing"]);
    const unknown = await s.person.api(method, path, { token: "lbp_not-a-real-token", body });
    expect([path, unknown.status, unknown.body.code]).toEqual([path, 401, "auth.invalid"]);
  }
  const basic = await s.person.api("GET", "/whoami", { token: null, headers: { Authorization: "Basic YWRhOnNlY3JldA==" } });
  expect([basic.status, basic.body.code]).toEqual([401, "auth.missing"]);
});

test("an ask is read by its id, and an id that names no ask is 404 ask.not_found", async () => {
  const { ask, call } = await question(s.person, s.agent);
  const read = await s.person.api("GET", `/asks/${ask.id}`);
  expect(read.status).toBe(200);
  expect(read.body).toMatchObject({ id: ask.id, kind: "question", status: "awaiting_human", prompt: { question: "Which one?" } });

  const missing = await s.person.api("GET", "/asks/ask_doesnotexist0000");
  expect([missing.status, missing.body.code]).toEqual([404, "ask.not_found"]);
  const replyToMissing = await s.person.api("POST", "/asks/ask_doesnotexist0000/reply", { body: { outcome: "dismissed" } });
  expect([replyToMissing.status, replyToMissing.body.code]).toEqual([404, "ask.not_found"]);

  expect((await s.person.reply(ask.id, { outcome: "dismissed" })).status).toBe(200);
  await call;
});

test("an address the API does not have is 404 route.not_found", async () => {
  for (const [method, path] of [
    ["GET", "/nothing-here"],
    ["GET", "/asks/ask_x/reply/more"],
    ["DELETE", "/asks/ask_x"],
    ["POST", "/whoami"],
    ["GET", "/events"],
  ]) {
    const res = await s.person.api(method, path);
    expect([method, path, res.status, res.body.code]).toEqual([method, path, 404, "route.not_found"]);
  }
  const outside = await fetch(`${s.relay.url}/api/v2/whoami`);
  expect(outside.status).toBe(404);
  expect(((await outside.json()) as any).code).toBe("route.not_found");
});

test("a reply that is not JSON, has the wrong types or unknown keys is 422", async () => {
  const { ask, call } = await question(s.person, s.agent);
  const sent: [string, string][] = [
    ["", "body.malformed"],
    ["{", "body.malformed"],
    ["not json", "body.malformed"],
    ["null", "body.invalid"],
    ["[]", "body.invalid"],
    ['"answered"', "body.invalid"],
    ["{}", "body.invalid"],
    ['{"outcome":"shrugged"}', "body.invalid"],
    ['{"outcome":"answered","selected":"A"}', "body.invalid"],
    ['{"outcome":"answered","selected":[1]}', "body.invalid"],
    ['{"outcome":"answered","selected":["A"],"text":5}', "body.invalid"],
    ['{"outcome":"answered","selected":["A"],"mood":"happy"}', "body.invalid"],
    ['{"outcome":"dismissed","reason":"busy"}', "body.invalid"],
  ];
  for (const [raw, code] of sent) {
    const res = await s.person.api("POST", `/asks/${ask.id}/reply`, { raw, headers: { "Content-Type": "application/json" } });
    expect([raw, res.status, res.body.code]).toEqual([raw, 422, code]);
    expect(res.body.message).not.toMatch(STACK_TRACE);
  }
  const notUtf8 = await s.person.api("POST", `/asks/${ask.id}/reply`, { raw: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) });
  expect([notUtf8.status, notUtf8.body.code]).toEqual([422, "body.malformed"]);

  // Nothing refused was recorded.
  expect((await s.person.api("GET", `/asks/${ask.id}`)).body.thread).toEqual([]);
  await s.person.reply(ask.id, { outcome: "dismissed" });
  await call;
});

test("a body over 256 KiB is refused with 413 body.too_large, whether or not it declares its length", async () => {
  const { ask, call } = await question(s.person, s.agent);
  // On a route that takes 256 KiB; a reply takes more, for its line comments (replies-follow-the-ask-rules).
  const huge = JSON.stringify({ endpoint: "https://push.example/x", keys: { p256dh: "x", auth: "x" }, name: "x".repeat(256 * 1024) });
  const declared = await s.person.api("POST", "/push/devices", { raw: huge });
  expect([declared.status, declared.body.code]).toEqual([413, "body.too_large"]);

  const bytes = new TextEncoder().encode(huge);
  const streamed = await s.person.api("POST", "/push/devices", {
    raw: new ReadableStream({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 16 * 1024) controller.enqueue(bytes.subarray(i, i + 16 * 1024));
        controller.close();
      },
    }),
  });
  expect([streamed.status, streamed.body.code]).toEqual([413, "body.too_large"]);

  expect((await s.person.api("GET", `/asks/${ask.id}`)).body.status).toBe("awaiting_human");
  await s.person.reply(ask.id, { outcome: "dismissed" });
  await call;
});

test("no request, however odd, is answered with a 500 or a stack trace", async () => {
  const { ask, call } = await question(s.person, s.agent);
  const deep = "[".repeat(100_000) + "]".repeat(100_000);
  const odd: [string, string, string?][] = [
    ["GET", "/asks/%E0%A4%A"],
    ["GET", "/asks/" + "a".repeat(5000)],
    ["GET", "/asks?limit=1&limit=2"],
    ["GET", "/asks?before[]=1"],
    ["GET", "/files/..%2F..%2Fetc%2Fpasswd"],
    ["POST", `/asks/${ask.id}/reply`, deep],
    ["POST", `/asks/${ask.id}/reply`, '{"outcome":"answered","selected":["A"],"__proto__":{"x":1}}'],
    ["POST", `/asks/${ask.id}/reply`, '{"outcome":"answered","selected":["A"],"constructor":{"prototype":{}}}'],
    ["POST", `/asks/${ask.id}/reply`, '{"outcome":{"$gt":""}}'],
    ["POST", "/events/tickets", "{}"],
    ["PUT", "/uploads/x/y", "{}"],
    ["PUT", "/uploads/%00/%00", "x"],
  ];
  for (const [method, path, raw] of odd) {
    const res = await fetch(`${s.relay.url}/api/v1${path}`, { method, headers: { Authorization: `Bearer ${s.person.token}`, "Content-Type": "application/json" }, body: raw });
    const text = await res.text();
    expect([method, path, res.status < 500]).toEqual([method, path, true]);
    expect(text).not.toMatch(STACK_TRACE);
  }
  // The ask survived all of it untouched.
  expect((await s.person.api("GET", `/asks/${ask.id}`)).body.thread).toEqual([]);
  await s.person.reply(ask.id, { outcome: "dismissed" });
  await call;
});

test("from revision 3 every route behind a token declares the 429 its limits answer; revisions 1 and 2 stay as shipped", () => {
  const doc = (rev: string) => JSON.parse(readFileSync(join(ROOT, `revisions/openapi.${rev}.json`), "utf8"));
  const behindToken = (d: any) =>
    Object.entries(d.paths).flatMap(([path, ops]: [string, any]) =>
      Object.entries(ops)
        .filter(([, op]: [string, any]) => op.security?.some((s: object) => "BearerAuth" in s))
        .map(([method, op]: [string, any]) => ({ at: `${method.toUpperCase()} ${path}`, declares: "429" in op.responses })),
    );
  const r3 = behindToken(doc("3"));
  expect(r3.length).toBeGreaterThan(10);
  expect(r3.filter((r) => !r.declares).map((r) => r.at)).toEqual([]);
  for (const rev of ["1", "2"]) expect(behindToken(doc(rev)).filter((r) => r.declares)).toEqual([]);
});
