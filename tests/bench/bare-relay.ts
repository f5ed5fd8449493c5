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
//
// `--duties` adds what the relay must do before it shows an ask, done as plainly as they can be: the
// agent's token looked up (held in memory behind SQLite's `data_version`, as the relay holds it), the
// input parsed by the contract's schema, the look for the same ask to pick up, and the ask and its
// call's record stored in one commit that does not wait for the disk, with the count a cap needs (a
// reply closes its ask in its own durable commit).
// What the relay adds beyond this server is what its own structure costs.
import { Database } from "bun:sqlite";
import * as v from "valibot";
import * as schemas from "@loopback/shared/generated/schemas";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { hashSecret } from "../../relay/src/ids.ts";

const file = join(process.argv[2] ?? ".", process.argv.includes("--duties") ? "bare-duties.sqlite" : "bare.sqlite");
for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
const db = new Database(file, { create: true });
db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL");
db.exec("CREATE TABLE IF NOT EXISTS replies (id INTEGER PRIMARY KEY, ask_id TEXT NOT NULL, body TEXT NOT NULL)");
const insertReply = db.query("INSERT INTO replies (ask_id, body) VALUES (?, ?)");

/** What the relay must do before it shows an ask (`--duties`), on the least server's database. */
function dutiesOn(db: Database) {
  db.exec(`CREATE TABLE tokens (hash TEXT PRIMARY KEY, person TEXT NOT NULL);
    CREATE TABLE asks (id TEXT PRIMARY KEY, token TEXT NOT NULL, fingerprint TEXT NOT NULL, open INTEGER NOT NULL, ask TEXT NOT NULL, created_at TEXT NOT NULL);
    CREATE INDEX asks_fingerprint ON asks (fingerprint, created_at);
    CREATE INDEX asks_open ON asks (token, open);
    CREATE TABLE calls (id TEXT PRIMARY KEY, request_id TEXT NOT NULL, ask_id TEXT NOT NULL);`);
  db.query("INSERT INTO tokens VALUES (?, ?)").run(hashSecret("bare"), "bench");
  const dataVersion = db.query<{ data_version: number }, []>("PRAGMA data_version");
  const tokenRow = db.query<{ person: string }, [string]>("SELECT person FROM tokens WHERE hash = ?");
  const sameAsk = db.query<{ id: string }, [string, string]>("SELECT id FROM asks WHERE fingerprint = ? AND created_at > ? LIMIT 1");
  const openAsks = db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM asks WHERE token = ? AND open = 1");
  const insertAsk = db.query("INSERT INTO asks VALUES (?, ?, ?, 1, ?, ?)");
  const insertCall = db.query("INSERT INTO calls VALUES (?, ?, ?)");
  const closeAsk = db.query("UPDATE asks SET open = 0 WHERE id = ?");
  const [light, durable] = [db.query("PRAGMA synchronous = NORMAL"), db.query("PRAGMA synchronous = FULL")];
  const inputSchemas: Record<string, v.GenericSchema> = { ask_question: schemas.QuestionInput, request_review: schemas.ReviewInput };
  const people = new Map<string, string>();
  let version = -1;
  return {
    /** The person behind the request's token, looked up as the relay does: held, and let go when another connection commits. */
    person(request: Request): string {
      const token = /^Bearer ([A-Za-z0-9_-]{1,200})$/.exec(request.headers.get("authorization") ?? "")?.[1];
      if (!token) throw new Error("no token");
      const now = dataVersion.get()!.data_version;
      if (now !== version) {
        people.clear();
        version = now;
      }
      const key = hashSecret(token);
      const found = people.get(key) ?? tokenRow.get(key)?.person;
      if (!found) throw new Error("unknown token");
      people.set(key, found);
      return found;
    },
    /** The ask checked, looked for and stored, as the relay must before it shows it. */
    store(body: Message, personId: string, ask: { id: string; kind: string; createdAt: string }): void {
      const input = v.parse(inputSchemas[String(body.params?.name)] ?? schemas.QuestionInput, body.params?.arguments ?? {});
      const fingerprint = hashSecret(`${personId}\n${ask.kind}\n${JSON.stringify(input)}`);
      if (sameAsk.get(fingerprint, new Date(Date.now() - 600_000).toISOString())) throw new Error("asked already");
      light.run();
      db.run("BEGIN IMMEDIATE");
      if (openAsks.get("bare")!.n >= 1_000_000) throw new Error("too many open asks");
      insertAsk.run(ask.id, "bare", fingerprint, JSON.stringify({ ...ask, input }), ask.createdAt);
      insertCall.run(`cal_${ask.id}`, JSON.stringify(body.id), ask.id);
      db.run("COMMIT");
      durable.run();
    },
    /** The reply stored, closing its ask in the same durable commit: the cap's count sees only open asks. */
    reply(askId: string, text: string): void {
      db.run("BEGIN IMMEDIATE");
      insertReply.run(askId, text);
      closeAsk.run(askId);
      db.run("COMMIT");
    },
  };
}
const duties = process.argv.includes("--duties") ? dutiesOn(db) : undefined;

type Waiting = { requestId: unknown; write(text: string): void; end(): void };
const waiting = new Map<string, Waiting>();
const inboxes = new Set<{ send(text: string): unknown }>();
let asks = 0;

/** What the least server reads of a JSON-RPC message, unchecked. */
type Message = { id?: unknown; method?: string; params?: { protocolVersion?: string; name?: string; arguments?: unknown } };

const sse = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

/** A call held on its own SSE stream, the ask on every inbox as the stream opens. */
function call(body: Message, personId: string | undefined): Response {
  const askId = `ask_bare${++asks}`;
  const ask = { id: askId, kind: "question", status: "awaiting_human", input: body.params?.arguments ?? {}, createdAt: new Date().toISOString(), waiting: true };
  if (duties && personId !== undefined) duties.store(body, personId, ask);
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
  if (duties) duties.reply(askId, text);
  else insertReply.run(askId, text);
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
  const personId = duties?.person(request);
  const body = (await request.json()) as Message;
  if (body.id === undefined) return new Response(null, { status: 202 });
  if (body.method === "initialize") {
    const result = { protocolVersion: body.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "bare", version: "0" } };
    return Response.json({ jsonrpc: "2.0", id: body.id, result }, { headers: { "Mcp-Session-Id": crypto.randomUUID() } });
  }
  if (body.method === "tools/call") return call(body, personId);
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
