// The relay's log, read as an operator and a log stack read it: an access line per request, refused
// tokens and rate limits with the client's address, JSON lines that parse, levels that hold lines
// back, and never a token, ticket or key, in a run that uses every kind of secret the relay knows.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { EventSocket } from "../support/person.ts";
import { PushReceiver } from "../support/push-receiver.ts";
import { RelayProcess } from "../support/relay-process.ts";
import { askWhen, newProject, scene, until, type Scene } from "../support/scene.ts";
import { question } from "./open-ask.ts";
import { put, uploadTicket, PNG } from "./upload-image.ts";

setDefaultTimeout(30_000);

let s: Scene;
let push: PushReceiver;
beforeAll(async () => {
  push = await PushReceiver.start(async () => (await s.person.api("GET", "/push/key")).body.publicKey);
  s = await scene({ env: { LOOPBACK_LOG_FORMAT: "json", LOOPBACK_LOG_LEVEL: "debug", NODE_EXTRA_CA_CERTS: push.caFile, LOOPBACK_PUSH_HOSTS: push.host, LOOPBACK_PUBLIC_URL: "https://loopback.example.test" } });
});
afterAll(async () => {
  await s?.dispose();
  push?.stop();
});

/** What the relay logged after its first-start banner (which prints the first tokens, once, on purpose). */
const logged = () => s.relay.log.split("More tokens:").at(-1)!.split("\n").slice(1).filter((line) => line.trim() !== "");
const records = () => logged().map((line) => JSON.parse(line) as Record<string, unknown>);

test("every request gets one access line: method, path, status, duration and the client's address", async () => {
  const marker = `/api/v1/asks/ask_${crypto.randomUUID().slice(0, 8)}`;
  await fetch(`${s.relay.url}${marker}?token=query-secret`, { headers: { Authorization: `Bearer ${s.person.token}` } });
  const line = await until(() => records().find((r) => r.path === marker), "the access line is written");
  expect(line).toMatchObject({ level: "INFO", logger: "loopback.http", method: "GET", path: marker, status: 404, address: "127.0.0.1" });
  expect(typeof line.ms).toBe("number");
  expect(typeof line["@timestamp"]).toBe("string");
  expect(JSON.stringify(line)).not.toContain("query-secret");
});

test("a refused token is logged with the client's address, and the 429s past the limit too, each with Retry-After", async () => {
  let limited: Response | undefined;
  for (let i = 0; i < 25 && !limited; i++) {
    const res = await fetch(`${s.relay.url}/api/v1/whoami`, { headers: { Authorization: `Bearer lbp_wrong-${i}` } });
    if (res.status === 429) limited = res;
    else await res.body?.cancel();
  }
  expect(limited?.headers.get("retry-after")).toBe("60");
  const all = await until(() => {
    const r = records();
    return r.some((x) => x.code === "auth.rate_limited") && r.some((x) => x.path === "/api/v1/whoami" && x.status === 429) && r;
  }, "the rate limit and its access line are logged");
  expect(all.find((r) => r.code === "auth.invalid")).toMatchObject({ level: "WARN", logger: "loopback.auth", address: "127.0.0.1", message: "refused a token from 127.0.0.1" });
  expect(all.find((r) => r.code === "auth.rate_limited")).toMatchObject({ level: "WARN", address: "127.0.0.1" });
  expect(all.find((r) => r.path === "/api/v1/whoami" && r.status === 429)).toMatchObject({ level: "WARN", address: "127.0.0.1" });
});

test("no token, ticket or key the run used appears in the log", async () => {
  const secrets: Record<string, string> = { "person token": s.person.token, "agent token": s.agentToken };
  // A push device, and a question that is pushed to it.
  const sub = push.subscribe();
  expect((await s.person.api("POST", "/push/devices", { body: { endpoint: sub.endpoint, keys: sub.keys, name: "Phone" } })).status).toBe(201);
  Object.assign(secrets, { "push endpoint": sub.endpoint, "device p256dh": sub.keys.p256dh, "device auth": sub.keys.auth });
  const q = await question(s.person, s.agent, { project: newProject(), question: "Log this?" });
  await push.waitFor(sub.id);
  // An event ticket, redeemed by a socket.
  const ticket = (await s.person.api("POST", "/events/tickets")).body.ticket as string;
  const socket = await EventSocket.open(s.relay.url, ["loopback.v1", `loopback.ticket.${ticket}`]);
  await socket.next((f) => f.type === "snapshot");
  socket.close();
  secrets["event ticket"] = ticket;
  // An upload ticket, spent.
  const upload = await uploadTicket(s.agent);
  // The ticket names the public URL; the test reaches the relay itself.
  expect((await put(upload.uploadUrl.replace("https://loopback.example.test", s.relay.url), PNG)).status).toBe(201);
  secrets["upload ticket"] = new URL(upload.uploadUrl).pathname.split("/").at(-1)!;
  // A refused token, and the reply that closes the ask.
  await fetch(`${s.relay.url}/mcp`, { method: "POST", headers: { Authorization: "Bearer lba_refused-secret-token" } });
  secrets["refused token"] = "lba_refused-secret-token";
  await s.person.reply(q.ask.id, { outcome: "dismissed" });
  await askWhen(s.person, q.ask.id, (a) => a.status === "closed");
  const [keys] = await s.relay.rows<{ private_key: string }>("select private_key from push_keys");
  secrets["VAPID private key"] = keys.private_key;

  await until(() => records().some((r) => r.path === `/api/v1/asks/${q.ask.id}/reply`), "the reply's access line is written");
  const log = logged().join("\n");
  expect(log).toContain(`/api/v1/uploads/`);
  for (const [what, secret] of Object.entries(secrets)) expect(log.includes(secret) ? what : "absent").toBe("absent");
  for (const line of logged()) expect(() => JSON.parse(line)).not.toThrow();
});

test("the text format is one readable line per request, and a level holds back what weighs less", async () => {
  const text = await new RelayProcess().start();
  const quiet = await new RelayProcess({ env: { LOOPBACK_LOG_LEVEL: "warn" } }).start();
  try {
    for (const relay of [text, quiet]) await (await fetch(`${relay.url}/api/v1/whoami`, { headers: { Authorization: "Bearer lbp_wrong" } })).body?.cancel();
    await until(() => text.log.includes("WARN auth: refused a token from 127.0.0.1"), "the text relay logs the refusal");
    await until(() => quiet.log.includes("WARN auth: refused a token from 127.0.0.1"), "the quiet relay logs the refusal");
    expect(text.log).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z INFO http: GET \/api\/v1\/whoami 401 [\d.]+ ms 127\.0\.0\.1$/m);
    expect(quiet.log).not.toContain("INFO http:");
  } finally {
    await text.dispose();
    await quiet.dispose();
  }
});

test("an unknown level or format stops the relay at start, saying what it takes", async () => {
  const bad = new RelayProcess({ env: { LOOPBACK_LOG_FORMAT: "xml" } });
  await expect(bad.start()).rejects.toThrow(/LOOPBACK_LOG_FORMAT must be one of text, json/);
  await bad.dispose();
});
