// The bare path: what the benchmark's rounds cost with nothing of Loopback in the way, measured in the
// same run as the relay. A Bun server with the relay's transports and disk and no logic: an MCP
// `tools/call` gets an SSE stream and puts a frame on the person's socket (the ask, stored without
// waiting for the disk, as the relay stores one); the person's `POST …/reply` is committed durably
// (WAL, synchronous=FULL: the relay's settings), then written to that stream as the call's result,
// then answered `200`. No tokens, no sessions, no validation, no rules. The same agent (the official
// SDK client) and the same person process measure it, so the relay's figures minus these are what
// Loopback itself adds. Run as a process of its own: `bun tests/bench/bare-relay.ts DIR` prints its port.
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";

const file = join(process.argv[2] ?? ".", "bare.sqlite");
for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
const db = new Database(file, { create: true });
db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL");
db.exec("CREATE TABLE IF NOT EXISTS asks (id TEXT PRIMARY KEY, body TEXT NOT NULL)");
db.exec("CREATE TABLE IF NOT EXISTS replies (id INTEGER PRIMARY KEY, ask_id TEXT NOT NULL, body TEXT NOT NULL)");
const syncOff = db.query("PRAGMA synchronous = NORMAL");
const syncFull = db.query("PRAGMA synchronous = FULL");
const insertAsk = db.query("INSERT INTO asks (id, body) VALUES (?, ?)");
const insertReply = db.query("INSERT INTO replies (ask_id, body) VALUES (?, ?)");

type Held = { requestId: unknown; write(text: string): void; end(): void };
const calls = new Map<string, Held>();
const inboxes = new Set<{ send(text: string): unknown }>();
let asks = 0;

const sse = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

function call(body: any): Response {
  const askId = `ask_bare${++asks}`;
  const ask = { id: askId, kind: "question", status: "awaiting_human", input: body.params?.arguments ?? {}, createdAt: new Date().toISOString() };
  syncOff.run();
  insertAsk.run(askId, JSON.stringify(ask));
  syncFull.run();
  const direct: Bun.DirectUnderlyingSource<string> = {
    type: "direct",
    pull: (controller) =>
      new Promise<void>((done) => {
        const write = (text: string) => {
          controller.write(text);
          void controller.flush();
        };
        write(": open\n\n");
        calls.set(askId, { requestId: body.id, write, end: () => (controller.close(), done()) });
        const frame = JSON.stringify({ type: "ask.opened", ask: { ...ask, waiting: true } });
        for (const ws of inboxes) ws.send(frame);
      }),
  };
  // The DOM's `ReadableStream` declaration, also in scope, hides the direct stream's constructor type.
  const stream = new ReadableStream(direct as unknown as UnderlyingDefaultSource<string>);
  return new Response(stream, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } });
}

async function reply(askId: string, request: Request): Promise<Response> {
  const text = await request.text();
  const reply = JSON.parse(text);
  insertReply.run(askId, text);
  const held = calls.get(askId);
  calls.delete(askId);
  const result = { content: [{ type: "text", text: JSON.stringify({ askId, reply }) }], structuredContent: { askId, reply } };
  held?.write(sse({ jsonrpc: "2.0", id: held.requestId, result }));
  held?.end();
  return Response.json({ id: askId, kind: "question", status: "closed", thread: [{ author: "human", reply, at: new Date().toISOString() }] });
}

const server = Bun.serve<undefined>({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  async fetch(request, srv) {
    const { pathname } = new URL(request.url);
    if (pathname === "/healthz") return new Response(null, { status: 204 });
    if (pathname === "/api/v1/events/tickets") return Response.json({ ticket: "bare", expiresAt: new Date(Date.now() + 60_000).toISOString() }, { status: 201 });
    if (pathname === "/api/v1/events") return srv.upgrade(request, { headers: { "Sec-WebSocket-Protocol": "loopback.v1" }, data: undefined }) ? undefined : new Response(null, { status: 400 });
    const replying = /^\/api\/v1\/asks\/([^/]+)\/reply$/.exec(pathname);
    if (replying && request.method === "POST") return reply(replying[1], request);
    if (pathname !== "/mcp") return new Response(null, { status: 404 });
    if (request.method === "GET") return new Response(null, { status: 405 });
    if (request.method === "DELETE") return new Response(null, { status: 200 });
    const body: any = await request.json();
    if (body.id === undefined) return new Response(null, { status: 202 });
    if (body.method === "initialize") {
      const result = { protocolVersion: body.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "bare", version: "0" } };
      return Response.json({ jsonrpc: "2.0", id: body.id, result }, { headers: { "Mcp-Session-Id": "bare" } });
    }
    if (body.method === "tools/call") return call(body);
    return Response.json({ jsonrpc: "2.0", id: body.id, result: {} });
  },
  websocket: {
    open(ws) {
      inboxes.add(ws);
      ws.send(JSON.stringify({ type: "snapshot", open: [], recent: [] }));
    },
    close(ws) {
      inboxes.delete(ws);
    },
    message() {},
  },
});
console.log(`listening ${server.port}`);
