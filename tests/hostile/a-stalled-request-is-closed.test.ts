// Connections that send nothing are closed, token or none: a request that declares a body and never
// sends it would otherwise hold a descriptor forever, and enough of them make the relay deaf. Only a
// stream MCP opened for a token it let in (a call waiting on the person) is never idle-closed.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { newProject, openedAsk, scene, until, type Scene } from "../support/scene.ts";

setDefaultTimeout(30_000);

const IDLE_S = 1;
let s: Scene;

beforeAll(async () => {
  // No progress notices: nothing but the lifted timeout keeps a waiting call's stream open.
  s = await scene({ env: { LOOPBACK_IDLE_TIMEOUT_S: String(IDLE_S), LOOPBACK_PROGRESS_EVERY_S: "60" } });
});
afterAll(async () => {
  await s?.dispose();
});

/** Sends `head` and nothing more; resolves with how long the relay took to close the connection. */
async function stall(head: string): Promise<number> {
  const started = performance.now();
  let closedAt = 0;
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port: s.relay.port,
    socket: { data() {}, close: () => void (closedAt = performance.now()), error: () => void (closedAt ||= performance.now()) },
  });
  socket.write(head);
  try {
    await until(() => closedAt > 0, "the relay closes the stalled connection", 10_000);
  } finally {
    socket.end();
  }
  return closedAt - started;
}

const headers = (path: string, extra = "") => `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n${extra}\r\n`;

test("a POST that declares a body and never sends it is closed within the idle timeout, with a token or without", async () => {
  const closed = await Promise.all([
    stall(headers("/api/v1/asks/ask_x/reply")),
    stall(headers("/api/v1/asks/ask_x/reply", `Authorization: Bearer ${s.person.token}\r\n`)),
    stall(headers("/mcp", `Authorization: Bearer ${s.agentToken}\r\nAccept: application/json, text/event-stream\r\n`)),
  ]);
  // Bun checks its timers every 4 s: a connection goes within the idle timeout and one such tick.
  for (const ms of closed) expect(ms).toBeLessThan(IDLE_S * 1000 + 4_500);
  console.log(`stalled connections closed after ${closed.map((ms) => Math.round(ms)).join(", ")} ms (idle timeout ${IDLE_S} s)`);
});

test("an agent's call waiting on the person for longer than the idle timeout keeps its stream and gets the answer", async () => {
  // Over plain HTTP, as a client does it, so a dropped stream is seen rather than resumed by an SDK.
  const mcp = (body: unknown, session?: string) =>
    fetch(`${s.relay.url}/mcp`, {
      method: "POST",
      headers: { Authorization: `Bearer ${s.agentToken}`, Accept: "application/json, text/event-stream", "Content-Type": "application/json", ...(session ? { "Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18" } : {}) },
      body: JSON.stringify(body),
    });
  const init = await mcp({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  const session = init.headers.get("mcp-session-id")!;
  await init.text();
  await (await mcp({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).text();
  const project = newProject();
  const call = await mcp({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "ask_question", arguments: { question: "Still there?", project, options: [{ label: "Yes" }, { label: "No" }] } } }, session);
  expect(call.headers.get("content-type")).toStartWith("text/event-stream");
  let text = "";
  let ended = false;
  const reading = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of call.body!) text += decoder.decode(chunk, { stream: true });
    ended = true;
  })().catch(() => void (ended = true));
  const ask = await openedAsk(s.person, project);
  // Past the idle timeout and Bun's next 4-s check of it.
  await Bun.sleep(IDLE_S * 1000 + 4_500);
  expect(ended).toBe(false);
  await s.person.reply(ask.id, { outcome: "answered", selected: ["Yes"] });
  await until(() => text.includes('"id":2'), "the call's result comes down its stream");
  expect(text).toContain('\\"selected\\":[\\"Yes\\"]');
  await reading;
});
