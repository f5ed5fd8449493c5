// The bare path: the least server that does the benchmark's job, measured in the same run as the
// relay. For the agent, MCP's Streamable HTTP as the least server speaks it: `initialize` answered as
// JSON with a session id, notifications `202`, and a `tools/call` answered with an SSE stream that
// carries the call's result once the person replies. For the person, a WebSocket that hears each ask
// and a `POST …/reply` committed durably to SQLite (WAL, synchronous=FULL: the relay's settings), then
// written to the waiting stream, then answered `200`. Nothing else: no tokens, no validation of the
// JSON-RPC it reads, no rules, no stored ask, no record of the call. Not the SDK's `Server` on its
// transport: that validates every message it reads and writes, ~0.5 ms more on each path after a
// pause than this (same run), which would make the relay's share look that much smaller. The same
// agent (the official SDK client) and the same person process measure it, so the relay's figures
// minus these are what Loopback itself adds. Run as a process of its own:
// `bun tests/bench/bare-relay.ts DIR` prints its port.
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";

const file = join(process.argv[2] ?? ".", "bare.sqlite");
for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
const db = new Database(file, { create: true });
db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL");
db.exec("CREATE TABLE IF NOT EXISTS replies (id INTEGER PRIMARY KEY, ask_id TEXT NOT NULL, body TEXT NOT NULL)");
const insertReply = db.query("INSERT INTO replies (ask_id, body) VALUES (?, ?)");

type Waiting = { requestId: unknown; write(text: string): void; end(): void };
const waiting = new Map<string, Waiting>();
const inboxes = new Set<{ send(text: string): unknown }>();
let asks = 0;

/** What the least server reads of a JSON-RPC message, unchecked. */
type Message = { id?: unknown; method?: string; params?: { protocolVersion?: string; arguments?: unknown } };

const sse = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

/** A call held on its own SSE stream, the ask on every inbox as the stream opens. */
function call(body: Message): Response {
  const askId = `ask_bare${++asks}`;
  const ask = { id: askId, kind: "question", status: "awaiting_human", input: body.params?.arguments ?? {}, createdAt: new Date().toISOString(), waiting: true };
  const direct: Bun.DirectUnderlyingSource<string> = {
    type: "direct",
    pull: (controller) =>
      new Promise<void>((done) => {
        const write = (text: string) => {
          controller.write(text);
          void controller.flush();
        };
        waiting.set(askId, { requestId: body.id, write, end: () => (controller.close(), done()) });
        const frame = JSON.stringify({ type: "ask.opened", ask });
        for (const ws of inboxes) ws.send(frame);
      }),
  };
  // The DOM's `ReadableStream` declaration, also in scope, hides the direct stream's constructor type.
  const stream = new ReadableStream(direct as unknown as UnderlyingDefaultSource<string>);
  return new Response(stream, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } });
}

async function reply(askId: string, request: Request): Promise<Response> {
  const text = await request.text();
  insertReply.run(askId, text);
  const held = waiting.get(askId);
  waiting.delete(askId);
  if (held) {
    const structuredContent = { askId, reply: JSON.parse(text) };
    held.write(sse({ jsonrpc: "2.0", id: held.requestId, result: { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent } }));
    held.end();
  }
  return new Response(null, { status: 200 });
}

async function mcp(request: Request): Promise<Response> {
  if (request.method === "GET") return new Response(null, { status: 405 });
  if (request.method === "DELETE") return new Response(null, { status: 200 });
  const body = (await request.json()) as Message;
  if (body.id === undefined) return new Response(null, { status: 202 });
  if (body.method === "initialize") {
    const result = { protocolVersion: body.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "bare", version: "0" } };
    return Response.json({ jsonrpc: "2.0", id: body.id, result }, { headers: { "Mcp-Session-Id": crypto.randomUUID() } });
  }
  if (body.method === "tools/call") return call(body);
  return Response.json({ jsonrpc: "2.0", id: body.id, result: body.method === "tools/list" ? { tools: [] } : {} });
}

const server = Bun.serve<undefined>({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  fetch(request, srv) {
    const { pathname } = new URL(request.url);
    if (pathname === "/mcp") return mcp(request);
    const replying = /^\/api\/v1\/asks\/([^/]+)\/reply$/.exec(pathname);
    if (replying && request.method === "POST") return reply(replying[1], request);
    if (pathname === "/api/v1/events/tickets") return Response.json({ ticket: "bare", expiresAt: new Date(Date.now() + 60_000).toISOString() }, { status: 201 });
    if (pathname === "/api/v1/events") return srv.upgrade(request, { headers: { "Sec-WebSocket-Protocol": "loopback.v1" }, data: undefined }) ? undefined : new Response(null, { status: 400 });
    if (pathname === "/healthz") return new Response(null, { status: 204 });
    return new Response(null, { status: 404 });
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
