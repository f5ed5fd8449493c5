// Thousands of generated bad requests to every route, the event socket and every MCP tool: none gets
// a 5xx, the relay keeps answering, and nothing stored changes.
import { afterAll, beforeAll, expect, test } from "bun:test";
import WebSocket from "ws";
import { Agent } from "../support/agent.ts";
import { Person } from "../support/person.ts";
import { RelayProcess } from "../support/relay-process.ts";
import { until } from "../support/scene.ts";

let relay: RelayProcess;
let person: Person;
let personToken: string;
let agentToken: string;
let openAskId: string;
let briefingId: string;
let closedAskId: string;
const pendingCalls: Promise<unknown>[] = [];

// A seeded generator, so a failure can be replayed.
let seed = 0x5eed;
const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
const int = (n: number) => Math.floor(rand() * n);

const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);
const WEIRD_STRINGS = ["", " ", "\u0000", "\uffff", "\ud800", "💥".repeat(1000), "x".repeat(300 * 1024), "<script>alert(1)</script>", "../../etc/passwd", "%00", "null", "undefined", "NaN", "-1", "1e309", "{}", "[]"];
const WEIRD_VALUES: unknown[] = [null, true, false, 0, -1, 1.5, 1e308, -0, "", "x", [], {}, [null], { "": 1 }, { __proto__: { polluted: true } }, { constructor: { prototype: { polluted: true } } }, Array(10_000).fill(1), "x".repeat(70_000)];

/** A body that is never a valid reply: every case breaks the contract on purpose. */
function badReply(): string | Uint8Array {
  const outcomes = ["answered", "approved", "changes_requested", "follow_up", "dismissed", "responded", "maybe", "", 1, null];
  switch (int(12)) {
    case 0:
      return JSON.stringify({ outcome: pick(outcomes), [pick(["extra", "__proto__", "constructor", "x".repeat(500)])]: pick(WEIRD_VALUES) });
    case 1:
      return JSON.stringify({ outcome: "answered", selected: pick(WEIRD_VALUES.filter((v) => !Array.isArray(v) || v.length > 0 && typeof v[0] !== "string")) });
    case 2:
      return JSON.stringify({ outcome: "changes_requested", feedback: pick([null, 1, [], {}, ""]) });
    case 3:
      return JSON.stringify({ outcome: "responded", points: pick([[], null, "1", [{}], [{ point: 1 }], [{ point: "1", resolved: "yes" }]]) });
    case 4:
      return JSON.stringify(pick(WEIRD_VALUES));
    case 5:
      return pick([deep(5_000), deep(100_000), deepObject(50_000)]);
    case 6:
      return '{"outcome":"dismissed"'.slice(0, 1 + int(20));
    case 7:
      return new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]); // invalid UTF-8 inside JSON
    case 8:
      return JSON.stringify({ outcome: "follow_up", question: "x".repeat(257 * 1024) });
    case 9:
      return JSON.stringify({ outcome: "answered", selected: Array.from({ length: 40_000 }, (_, i) => `c${i}`) });
    case 10:
      return pick(["", " ", "null", "true", "\"dismissed\"", "[]", "{}"]);
    default:
      return JSON.stringify({ outcome: "approved", note: pick(WEIRD_VALUES.filter((v) => typeof v !== "string")) });
  }
}

function badPath(): string {
  const ids = [openAskId, briefingId, closedAskId, "ask_nope", "", "%", "%ff", "..%2f..", "x".repeat(5000), "💥", "%00", "a/b/c", "?x=1", "#frag"];
  return pick([
    `/api/v1/asks/${pick(ids)}`,
    `/api/v1/asks/${pick(ids)}/reply`,
    `/api/v1/files/${pick(ids)}`,
    `/api/v1/uploads/${pick(ids)}/${pick(ids)}`,
    `/api/v1/asks?limit=${pick(["0", "101", "-1", "1e3", "NaN", "", "1.5", "99999999999999999999", "1&limit=2", "%ff"])}`,
    `/api/v1/asks?before=${pick(["yesterday", "2026-13-45T99:99:99Z", "", "0", "%ff", "x".repeat(3000)])}`,
    `/api/v1/${pick(["whoami", "snapshot", "events/tickets", "nope", "", "asks/", "../../etc"])}${pick(["", "/", "//", "?a=%zz"])}`,
    `/inbox/${pick(["..%2f..%2fpackage.json", "%ff", "../../relay/src/cli.ts", "x".repeat(2000)])}`,
    pick(["/", "/mcp/x", "/healthzz", "/api", "/api/v2/whoami", "//api/v1/whoami"]),
  ]);
}

async function request(method: string, path: string, init: { body?: string | Uint8Array; headers?: Record<string, string> } = {}): Promise<number> {
  const res = await fetch(`${relay.url}${path}`, { method, body: method === "GET" || method === "HEAD" ? undefined : (init.body as BodyInit | undefined), headers: init.headers, redirect: "manual" });
  await res.arrayBuffer();
  return res.status;
}

async function storedState() {
  const snap = await person.api("GET", "/snapshot");
  const history = await person.api("GET", "/asks?limit=100");
  // `waiting` follows live calls; what must not change is what is stored.
  return JSON.stringify([snap.body, history.body], (k, v) => (k === "waiting" ? undefined : v));
}

beforeAll(async () => {
  relay = await new RelayProcess({ firstPerson: "fuzz" }).start();
  personToken = await relay.token("fuzz");
  agentToken = await relay.token("fuzz", { agent: true });
  person = new Person(relay.url, personToken);
  const agent = await Agent.connect(relay.url, agentToken);
  const socket = await person.socket();
  const openOne = async (tool: string, args: Record<string, unknown>) => {
    pendingCalls.push(agent.call(tool, args).catch(() => {}));
    return ((await socket.next((f) => f.type === "ask.opened")) as any).ask.id as string;
  };
  closedAskId = await openOne("ask_question", { question: "Closed?", project: "fuzz" });
  await person.reply(closedAskId, { outcome: "dismissed" });
  openAskId = await openOne("ask_question", { question: "Open?", project: "fuzz", options: [{ label: "A" }, { label: "B" }] });
  briefingId = await openOne("send_briefing", { title: "Points", project: "fuzz", sections: [{ points: [{ title: "One" }, { title: "Two" }] }] });
  socket.close();
});

afterAll(() => relay.dispose());

test("thousands of malformed requests to every route get clear refusals, never a 5xx, and change nothing", async () => {
  const before = await storedState();
  const auth = { Authorization: `Bearer ${personToken}` };
  const statuses = new Map<number, number>();
  const fivexx: string[] = [];
  let tried = 0;
  const CASES = 3_000;
  const worker = async () => {
    while (tried < CASES) {
      tried++;
      const kind = int(6);
      let method = "GET";
      let path = badPath();
      let init: { body?: string | Uint8Array; headers?: Record<string, string> } = { headers: { ...auth } };
      if (kind === 0 || kind === 1) {
        method = "POST";
        path = `/api/v1/asks/${pick([openAskId, briefingId, closedAskId])}/reply`;
        init = { body: badReply(), headers: { ...auth, "Content-Type": pick(["application/json", "text/plain", "application/x-www-form-urlencoded", "", "application/json; charset=latin1"]) } };
      } else if (kind === 2) {
        method = pick(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]);
        init.body = pick(WEIRD_STRINGS);
      } else if (kind === 3) {
        init.headers = { ...auth, "Loopback-Revision": pick(["3", "999999999999999999999", "-1", "two", "", "2.5", "1e9"]) };
      } else if (kind === 4) {
        method = "PUT";
        path = `/api/v1/uploads/${pick(["spc_x", "", "%ff"])}/${pick(["up_x", "x".repeat(4000), "%00"])}`;
        init = { body: pick(["<svg onload=alert(1)>", "\x89PNG", ""]), headers: { "Content-Type": pick(["image/png", "image/svg+xml", "text/html", ""]) } };
      }
      const status = await request(method, path, init).catch((e) => {
        fivexx.push(`${method} ${path.slice(0, 80)}: ${e}`);
        return 0;
      });
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status >= 500) fivexx.push(`${method} ${path.slice(0, 80)} → ${status}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  console.log(`fuzz: ${tried} HTTP requests tried; statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  expect(fivexx).toEqual([]);
  expect(await request("GET", "/healthz")).toBe(204);
  expect(await storedState()).toBe(before);
}, 120_000);

test("malformed arguments to every MCP tool are isError results that open or change nothing", async () => {
  const before = await storedState();
  const agent = await Agent.connect(relay.url, agentToken);
  const tools = ["ask_question", "request_review", "send_briefing", "answer_briefing", "answer_follow_up", "wait_for_reply", "get_upload_ticket", "get_inbox_link"];
  const badArgs = (): Record<string, unknown> =>
    pick([
      () => ({ [pick(["question", "title", "askId", "contentType", "project"])]: pick(WEIRD_VALUES) }),
      () => ({ question: "q", project: "p", options: Array.from({ length: pick([1, 7, 50]) }, (_, i) => ({ label: `o${i}` })) }),
      () => ({ title: "t", project: "p", content: [{ type: "image", uploadId: pick(["upl_nope", "", "../x"]) }] }),
      () => ({ title: "x".repeat(201), project: "p", content: [{ type: "markdown", text: "x" }] }),
      () => ({ title: "t", project: "p", sections: Array.from({ length: 51 }, () => ({ points: [{ title: "p" }] })) }),
      () => ({ askId: pick([openAskId, briefingId, closedAskId]), answers: [{ point: pick(["99", "1.1.1.1", "0", ""]), answer: "a" }] }),
      () => ({ askId: pick([openAskId, closedAskId]), answer: "not your move" }),
      () => ({ question: "q".repeat(300 * 1024), project: "p" }),
      () => ({ contentType: pick(["image/svg+xml", "text/html", 1, null]) }),
      () => ({ askId: pick(["ask_nope", 1, null, ""]) }),
      () => ({ extra: true, question: "q", project: "p" }),
    ])();
  let tried = 0;
  const problems: string[] = [];
  for (let i = 0; i < 600; i++) {
    const tool = pick(tools);
    const args = badArgs();
    tried++;
    const result = await agent.client.callTool({ name: tool, arguments: args }).catch((e) => ({ isError: true, content: [{ type: "text", text: String(e) }] }));
    const text = JSON.stringify((result as any).content ?? "");
    // A tool either refuses, or (for the two that open nothing) answers; it never opens an ask from bad input.
    if (!(result as any).isError && !["get_upload_ticket", "get_inbox_link"].includes(tool)) problems.push(`${tool} accepted ${JSON.stringify(args).slice(0, 120)}`);
    if (/internal/.test(text)) problems.push(`${tool}: ${text.slice(0, 200)}`);
  }
  // Garbage JSON-RPC straight at the endpoint.
  const raw = ["{", "[]", '{"jsonrpc":"2.0"}', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":7}', deep(50_000), '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":{},"capabilities":null}}'];
  for (const body of raw) {
    tried++;
    const status = await request("POST", "/mcp", { body, headers: { Authorization: `Bearer ${agentToken}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" } });
    if (status >= 500) problems.push(`raw ${body.slice(0, 40)} → ${status}`);
  }
  console.log(`fuzz: ${tried} MCP calls tried`);
  await agent.close();
  expect(problems).toEqual([]);
  expect(await storedState()).toBe(before);
}, 120_000);

test("garbage on the event socket is refused before the upgrade or closes only that socket", async () => {
  let tried = 0;
  for (const protocols of [[], ["loopback.v1"], ["loopback.ticket.nope"], ["loopback.v1", "loopback.ticket.nope"], ["x".repeat(200)]]) {
    tried++;
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${relay.url.replace("http", "ws")}/api/v1/events`, protocols);
      ws.on("unexpected-response", (_q, res) => resolve(res.statusCode ?? 0));
      ws.on("open", () => resolve(101));
      ws.on("error", () => resolve(-1));
    });
    expect(status).toBe(401);
  }
  const socket = await person.socket();
  for (const frame of ["x", Buffer.alloc(100, 1), "{".repeat(1000), "\u0000"]) {
    tried++;
    socket.ws.send(frame);
  }
  socket.ws.send(Buffer.alloc(64 * 1024, 120)); // over the frame limit: this socket is closed
  tried++;
  await until(() => socket.closed, "the relay closes the socket that sent an over-long frame");
  expect(await request("GET", "/healthz")).toBe(204);
  console.log(`fuzz: ${tried} socket cases tried`);
});

test("hardening: foreign origins, forged X-Forwarded-For, ticket floods and guessed tokens are refused with their own codes, and valid tokens still get in", async () => {
  const before = await storedState();
  let tried = 0;
  const problems: string[] = [];
  const upgrade = (headers: Record<string, string>, protocols = ["loopback.v1"]) =>
    new Promise<number>((resolve) => {
      const ws = new WebSocket(`${relay.url.replace("http", "ws")}/api/v1/events`, protocols, { headers });
      ws.on("unexpected-response", (_q, res) => resolve(res.statusCode ?? 0));
      ws.on("open", () => {
        ws.close();
        resolve(101);
      });
      ws.on("error", () => resolve(-1));
    });

  // Browser pages of other origins, with a valid token, never get the socket.
  const origins = ["http://evil.example", "https://evil.example:443", "null", "file://", "x".repeat(3000), "http://127.0.0.1.evil.example", "chrome-extension:", "javascript:alert(1)", "http://[::1", "http://\u00e9vil.example", "http://localhost.evil.example:1"];
  for (let i = 0; i < 120; i++) {
    tried++;
    const origin = pick(origins) + pick(["", "/", `/${int(1000)}`]);
    const status = await upgrade({ Origin: origin, Authorization: `Bearer ${personToken}` });
    if (status !== 403) problems.push(`socket from ${origin.slice(0, 40)} → ${status}`);
  }

  // Guessed tokens with forged X-Forwarded-For (no proxy is trusted here): all count against 127.0.0.1.
  const forged = ["1.2.3.4", "1.2.3.4, 5.6.7.8", "", "not an ip", "::1", "127.0.0.1", "x".repeat(5000), "999.999.999.999", ",,,", "[::ffff:1.2.3.4]"];
  const guessStatuses = new Map<number, number>();
  for (let i = 0; i < 200; i++) {
    tried++;
    const [method, path] = pick([["GET", "/api/v1/whoami"], ["GET", "/api/v1/snapshot"], ["POST", "/api/v1/events/tickets"], ["POST", "/mcp"]] as const);
    const status = await request(method, path, {
      headers: { Authorization: `Bearer lb${pick(["p", "a"])}_${crypto.randomUUID()}`, "X-Forwarded-For": pick(forged), "Content-Type": "application/json" },
      body: "{}",
    });
    guessStatuses.set(status, (guessStatuses.get(status) ?? 0) + 1);
    if (status >= 500) problems.push(`guess → ${status}`);
  }
  // Twenty were refused as unknown; every one after that was told to back off.
  expect(guessStatuses.get(429)).toBe(180);
  tried++;
  expect((await person.api("GET", "/whoami", { headers: { "X-Forwarded-For": "1.2.3.4" } })).status).toBe(200);

  // A token flooding event tickets gets its cap, then 429 ticket.too_many, never a crash.
  const flooder = new Person(relay.url, await relay.token("fuzz"));
  const ticketStatuses = new Map<string, number>();
  for (let i = 0; i < 150; i++) {
    tried++;
    const res = await flooder.api("POST", "/events/tickets");
    const key = `${res.status} ${res.body.code ?? ""}`.trim();
    ticketStatuses.set(key, (ticketStatuses.get(key) ?? 0) + 1);
  }
  expect(Object.fromEntries(ticketStatuses)).toEqual({ "201": 20, "429 ticket.too_many": 130 });

  // An agent flooding upload tickets likewise: isError upload.too_many past its cap.
  const floodAgent = await Agent.connect(relay.url, await relay.token("fuzz", { agent: true }));
  let issued = 0;
  for (let i = 0; i < 80; i++) {
    tried++;
    const result = await floodAgent.client.callTool({ name: "get_upload_ticket", arguments: { contentType: "image/png" } });
    if (!result.isError) issued++;
    else if (!JSON.stringify(result.content).includes("upload.too_many")) problems.push(`upload ticket flood: ${JSON.stringify(result.content).slice(0, 120)}`);
  }
  await floodAgent.close();
  expect(issued).toBe(50);

  // Paths that try to leave the web inbox's folder, sideways included.
  for (const path of ["/inbox/..%2fchrome-mv3%2fmanifest.json", "/inbox/..%2fweb2%2fx", "/inbox/..%2f..%2f.output%2fweb%2findex.html", "/inbox/%2e%2e%2f..%2fpackage.json", "/inbox/..\\..\\package.json", "/inbox/....//....//package.json"]) {
    tried++;
    const res = await fetch(`${relay.url}${path}`);
    const text = await res.text();
    if (res.status >= 500 || text.includes('"manifest_version"') || text.includes('"workspaces"')) problems.push(`${path} → ${res.status} ${text.slice(0, 60)}`);
  }

  console.log(`fuzz: ${tried} hardening requests tried`);
  expect(problems).toEqual([]);
  expect(await request("GET", "/healthz")).toBe(204);
  expect(await storedState()).toBe(before);
}, 120_000);

test("the relay's log never shows a token or a ticket after its first-start banner", () => {
  const afterBanner = relay.log.split("More tokens:").at(-1)!;
  expect(afterBanner).not.toContain(personToken);
  expect(afterBanner).not.toContain(agentToken);
  expect(afterBanner).not.toMatch(/lb[pa]_[A-Za-z0-9_-]{20,}|tkt_[A-Za-z0-9_-]{20,}|\/uploads\/[^/\s]+\/up_/);
});
