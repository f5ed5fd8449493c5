// The bare path: the least server that does the benchmark's job, measured in the same run as the
// relay. The official SDK's Server on its Streamable HTTP transport for the agent; for the person, a
// WebSocket that hears each ask and a `POST …/reply` that is committed durably to SQLite (WAL,
// synchronous=FULL: the relay's settings), then handed to the waiting call, then answered `200`.
// Nothing else: no tokens, no validation, no rules, no stored ask, no record of the call. The same
// agent (the official SDK client) and the same person process measure it, so the relay's figures
// minus these are what Loopback itself adds. Run as a process of its own:
// `bun tests/bench/bare-relay.ts DIR` prints its port.
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";

const file = join(process.argv[2] ?? ".", "bare.sqlite");
for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
const db = new Database(file, { create: true });
db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL");
db.exec("CREATE TABLE IF NOT EXISTS replies (id INTEGER PRIMARY KEY, ask_id TEXT NOT NULL, body TEXT NOT NULL)");
const insertReply = db.query("INSERT INTO replies (ask_id, body) VALUES (?, ?)");

const waiting = new Map<string, (reply: unknown) => void>();
const inboxes = new Set<{ send(text: string): unknown }>();
const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
let asks = 0;

function session(): { transport: WebStandardStreamableHTTPServerTransport; server: Server } {
  const server = new Server({ name: "bare", version: "0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const askId = `ask_bare${++asks}`;
    const reply = new Promise<unknown>((resolve) => waiting.set(askId, resolve));
    const ask = { id: askId, kind: "question", status: "awaiting_human", input: request.params.arguments ?? {}, createdAt: new Date().toISOString(), waiting: true };
    const frame = JSON.stringify({ type: "ask.opened", ask });
    for (const ws of inboxes) ws.send(frame);
    const structuredContent = { askId, reply: await reply };
    return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent };
  });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => crypto.randomUUID(),
    onsessioninitialized: (id) => void sessions.set(id, transport),
  });
  return { transport, server };
}

async function mcp(request: Request): Promise<Response> {
  const id = request.headers.get("mcp-session-id");
  const known = id ? sessions.get(id) : undefined;
  if (known) return known.handleRequest(request);
  if (request.method !== "POST") return new Response(null, { status: 404 });
  const body = await request.json();
  if (!isInitializeRequest(body)) return new Response(null, { status: 404 });
  const { transport, server } = session();
  await server.connect(transport);
  return transport.handleRequest(request, { parsedBody: body });
}

async function reply(askId: string, request: Request): Promise<Response> {
  const text = await request.text();
  insertReply.run(askId, text);
  waiting.get(askId)?.(JSON.parse(text));
  waiting.delete(askId);
  return new Response(null, { status: 200 });
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
