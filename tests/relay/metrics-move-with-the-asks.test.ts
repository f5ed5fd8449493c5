// /metrics, scraped as Prometheus scrapes it, while an agent asks and the person answers: the asks
// open and followed, the calls waiting per client, the inbox sockets, the reply → agent latency and
// the pushes move with them. Only this machine, or a scraper with LOOPBACK_METRICS_TOKEN, may read it.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { PushReceiver } from "../support/push-receiver.ts";
import { newProject, openedAsk, running, scene, until, type Scene } from "../support/scene.ts";

setDefaultTimeout(30_000);

const METRICS_TOKEN = "a-scraper-secret-of-this-test";
let s: Scene;
let push: PushReceiver;
beforeAll(async () => {
  push = await PushReceiver.start(async () => (await s.person.api("GET", "/push/key")).body.publicKey);
  s = await scene({
    client: { name: "claude-code", version: "2.1.0" },
    env: { LOOPBACK_METRICS_TOKEN: METRICS_TOKEN, NODE_EXTRA_CA_CERTS: push.caFile, LOOPBACK_PUSH_HOSTS: push.host, LOOPBACK_PUBLIC_URL: "https://loopback.example.test" },
  });
});
afterAll(async () => {
  await s?.dispose();
  push?.stop();
});

/** The samples of one scrape, by name and labels as the exposition writes them: `loopback_asks_open{status="awaiting_human"}`. */
async function scrape(headers: Record<string, string> = {}): Promise<Map<string, number>> {
  const res = await fetch(`${s.relay.url}/metrics`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
  const samples = new Map<string, number>();
  for (const line of (await res.text()).split("\n")) {
    const m = /^([a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (m) samples.set(m[1], Number(m[2]));
  }
  return samples;
}

test("the metrics move as an agent asks, waits and is answered", async () => {
  const sub = push.subscribe();
  expect((await s.person.api("POST", "/push/devices", { body: { endpoint: sub.endpoint, keys: sub.keys, name: "Phone" } })).status).toBe(201);
  const before = await scrape();
  expect(before.get('loopback_asks_open{status="awaiting_human"}')).toBe(0);
  expect(before.get("loopback_asks_waiting")).toBe(0);
  expect(before.get("loopback_reply_to_agent_seconds_count")).toBe(0);
  expect(before.get("loopback_database_errors_total")).toBe(0);

  const project = newProject();
  const call = running(s.agent.call("ask_question", { project, question: "Metrics?", options: [{ label: "Yes" }, { label: "No" }] }));
  const ask = await openedAsk(s.person, project, call);
  await push.waitFor(sub.id);
  const socket = await s.person.socket();
  const waiting = await until(async () => {
    const m = await scrape();
    return m.get('loopback_calls_waiting{client="claude-code"}') === 1 && m.get("loopback_sockets_open") === 1 && m;
  }, "the call and the socket are counted");
  expect(waiting.get('loopback_asks_open{status="awaiting_human"}')).toBe(1);
  expect(waiting.get("loopback_asks_waiting")).toBe(1);
  expect(waiting.get('loopback_pushes_total{outcome="sent"}')).toBe(1);

  expect((await s.person.reply(ask.id, { outcome: "answered", selected: ["Yes"] })).status).toBe(200);
  await call;
  socket.close();
  const after = await until(async () => {
    const m = await scrape();
    return m.get("loopback_sockets_open") === 0 && m;
  }, "the socket is no longer counted");
  expect(after.get('loopback_asks_open{status="awaiting_human"}')).toBe(0);
  expect(after.get("loopback_asks_waiting")).toBe(0);
  expect(after.has('loopback_calls_waiting{client="claude-code"}')).toBe(false);
  expect(after.get("loopback_reply_to_agent_seconds_count")).toBe(1);
  // The agent was waiting: its reply reached it within a second.
  expect(after.get('loopback_reply_to_agent_seconds_bucket{le="1"}')).toBe(1);
});

test("a forwarded request, or one from elsewhere, needs the metrics token", async () => {
  const forwarded = { "X-Forwarded-For": "203.0.113.7" };
  const refused = await fetch(`${s.relay.url}/metrics`, { headers: forwarded });
  expect(refused.status).toBe(403);
  expect((await refused.json()).code).toBe("metrics.refused");
  expect((await fetch(`${s.relay.url}/metrics`, { headers: { ...forwarded, Authorization: "Bearer not-the-token" } })).status).toBe(403);
  expect((await scrape({ ...forwarded, Authorization: `Bearer ${METRICS_TOKEN}` })).has("loopback_asks_waiting")).toBe(true);
});
