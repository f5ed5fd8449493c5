// MCP over Streamable HTTP at /mcp. Sessions live in the store, so any relay process serves a known
// `Mcp-Session-Id` (rebuilding the SDK's Server and transport from what `initialize` said). A
// blocking call sent alone is carried by the relay's own stream (call-stream.ts), primed with an
// event id for a client that resumes: after a crash, a restart or a dropped connection the client
// resumes it (`GET` + `Last-Event-ID`) on whichever process answers, which follows the same ask from
// the same turn and answers the original JSON-RPC request. Everything else goes to the SDK. Also
// checks Host and Origin (DNS rebinding), answers a refused token with a plain 401 (no OAuth
// discovery is served), and tells the SDK when an HTTP connection drops, which it does not notice.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { isInitializeRequest, RELATED_TASK_META_KEY, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { problem } from "@loopback/shared/problems";
import type { Caller } from "../auth/gate.ts";
import type { RevocationWatch } from "../auth/revocation-watch.ts";
import { problemResponse } from "../http/problem-response.ts";
import { newId } from "../ids.ts";
import { readCappedBody } from "../http/read-capped-body.ts";
import type { SessionRecords, SessionRow } from "../storage/store.ts";
import { callStream } from "./call-stream.ts";
import { callBlocking, createMcpServer, progress, toolContext, type McpServices } from "./session.ts";
import { blockingResult, budgetOf, toolError, toolResult, type BlockingTool } from "./tool.ts";
import { TOOLS_BY_NAME } from "./tools/index.ts";
import { requestUrl } from "../http/request-url.ts";

/** A tool input is at most 256 KiB of JSON; escaping and the JSON-RPC envelope fit in four times that. */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;
/** A session idle this long leaves memory (its row stays: the next request rebuilds it). */
const SESSION_IN_MEMORY_MS = 30 * 60_000;
/** How often a session's last use is written down: its expiry is counted in days. */
const TOUCH_EVERY_MS = 10 * 60_000;
const SSE_KEEPALIVE_MS = 15_000;
/** How long a stopping relay waits for released calls to return. */
const RELEASE_MS = 2_000;
/** The first protocol version whose clients read an event without data (a priming event). */
const RESUMABLE_PROTOCOL = "2025-11-25";

export interface McpEndpointDeps extends McpServices {
  revocations: RevocationWatch;
  sessions: SessionRecords;
  authenticate(authorization: string | null, address: string): Promise<Caller>;
}

interface Session {
  id: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  tokenHash: string;
  tokenId: string;
  active: number;
  lastSeen: number;
  touched: number;
  /** Blocking calls on the relay's own streams, by JSON-RPC id, to cancel when the client says so. */
  calls: Map<string, AbortController>;
}

/** A live stream a stopping relay hands over (closes, so the client resumes on the next process). */
interface Resumable {
  tokenId: string;
  handOver(): void;
}

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
const encoder = new TextEncoder();

export class McpEndpoint {
  #sessions = new Map<string, Session>();
  #restoring = new Map<string, Promise<Session>>();
  #resumable = new Set<Resumable>();
  #sweeper: ReturnType<typeof setInterval>;
  #unwatch: () => void;

  constructor(private relay: McpEndpointDeps) {
    this.#sweeper = setInterval(() => void this.sweep().catch((e) => console.warn("MCP session sweep failed:", e)), 60_000);
    this.#sweeper.unref?.();
    this.#unwatch = relay.revocations.watch({
      held: () => new Set([...[...this.#sessions.values()].map((s) => s.tokenId), ...[...this.#resumable].map((r) => r.tokenId)]),
      revoked: (tokenIds) => this.endRevoked(tokenIds),
    });
  }

  async handle(request: Request, address: string): Promise<Response> {
    try {
      this.assertTrustedOrigin(request);
      const caller = await this.relay.authenticate(request.headers.get("authorization"), address);
      const sessionId = request.headers.get("mcp-session-id");

      let body: unknown;
      if (request.method === "POST") {
        const bytes = await readCappedBody(request, MAX_MCP_BODY_BYTES, "input.too_large");
        try {
          body = JSON.parse(new TextDecoder().decode(bytes));
        } catch {
          return jsonRpcError(400, -32700, "Parse error: the body is not JSON.");
        }
      }

      if (sessionId) {
        const session = await this.find(sessionId, caller);
        // Unknown, expired, or another token's: the client starts a new session.
        if (!session) return jsonRpcError(404, -32001, "Session not found: initialize a new session.");
        const lastEventId = request.headers.get("last-event-id");
        if (request.method === "GET" && lastEventId) return await this.resume(session, caller, request, lastEventId);
        const call = request.method === "POST" ? blockingCall(request, body) : undefined;
        if (call) return this.carry(session, caller, request, call);
        return await this.forward(session, request, body);
      }
      const messages = Array.isArray(body) ? body : [body];
      const init = messages.find((m) => isInitializeRequest(m));
      if (request.method !== "POST" || !init) return jsonRpcError(400, -32000, "Bad Request: no session; send initialize first.");
      if ((await this.relay.sessions.countForToken(caller.tokenHash)) >= this.relay.config.maxSessionsPerToken) throw problem("sessions.too_many");
      const session = await this.open(caller, undefined, init.params);
      return await this.forward(session, request, body);
    } catch (e) {
      return problemResponse(e);
    }
  }

  /** The session in memory, or rebuilt from its row, when it belongs to the caller's token. */
  private async find(id: string, caller: Caller): Promise<Session | undefined> {
    const live = this.#sessions.get(id);
    if (live) return live.tokenHash === caller.tokenHash ? live : undefined;
    const row = await this.relay.sessions.get(id);
    if (!row || row.tokenHash !== caller.tokenHash) return undefined;
    let restoring = this.#restoring.get(id);
    if (!restoring) {
      restoring = this.open(caller, row, JSON.parse(row.initialize)).finally(() => this.#restoring.delete(id));
      this.#restoring.set(id, restoring);
    }
    return restoring;
  }

  /**
   * A session's Server and transport: new (stored once `initialize` is answered), or rebuilt from its
   * row by replaying its `initialize` into a transport that takes the stored id.
   */
  private async open(caller: Caller, row: SessionRow | undefined, initialize: unknown): Promise<Session> {
    const session = { tokenHash: caller.tokenHash, tokenId: caller.tokenId, active: 0, lastSeen: Date.now(), touched: Date.now(), calls: new Map() } as Session;
    session.server = createMcpServer(this.relay, caller);
    session.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => row?.id ?? crypto.randomUUID(),
      keepAliveMs: SSE_KEEPALIVE_MS,
      // Stored before `initialize` is answered: the client's next request may reach another replica.
      onsessioninitialized: async (id) => {
        session.id = id;
        this.#sessions.set(id, session);
        if (!row) {
          const at = this.relay.clock.now();
          await this.relay.sessions.insert({ id, tokenHash: caller.tokenHash, initialize: JSON.stringify(initialize), createdAt: at, lastSeenAt: at });
        }
      },
      // Only an explicit DELETE from the client: a relay that stops keeps its sessions.
      onsessionclosed: async (id) => {
        this.#sessions.delete(id);
        await this.relay.sessions.delete(id);
      },
    });
    await session.server.connect(session.transport);
    if (row) await replayInitialize(session.transport, row.id, initialize);
    return session;
  }

  /** Marks the session used now; its row hears of it now and then. */
  private seen(session: Session): void {
    const now = Date.now();
    session.lastSeen = now;
    if (now - session.touched > TOUCH_EVERY_MS) {
      session.touched = now;
      void this.relay.sessions.touch(session.id, this.relay.clock.now()).catch(() => {});
    }
  }

  private async forward(session: Session, request: Request, body: unknown): Promise<Response> {
    session.active++;
    this.seen(session);
    // A cancellation of a call on the relay's own stream: the SDK does not know that call.
    for (const requestId of cancelledIds(body)) session.calls.get(JSON.stringify(requestId))?.abort();
    const ids = requestIds(body);
    const dropped = () => {
      // The connection carrying these calls is gone: cancel them as if the client had, so their
      // asks stop showing `waiting` and nothing is handed to a reader who left. A primed call's
      // record stays: the client resumes it.
      for (const requestId of ids) {
        session.transport.onmessage?.({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason: "connection dropped" } });
      }
    };
    request.signal.addEventListener("abort", dropped, { once: true });
    try {
      const response = await session.transport.handleRequest(request, body === undefined ? undefined : { parsedBody: body });
      // Gone while its body was read: the listener came too late to hear it.
      if (request.signal.aborted) dropped();
      return openedAtOnce(response);
    } finally {
      session.active--;
      session.lastSeen = Date.now();
    }
  }

  /**
   * A blocking call on the relay's own stream. A client that can resume streams gets a durable record
   * of it (written by the call once its ask is open) whose id the stream's first event carries.
   */
  private carry(session: Session, caller: Caller, request: Request, call: BlockingCall): Response {
    this.seen(session);
    const key = JSON.stringify(call.id);
    const resumes = (request.headers.get("mcp-protocol-version") ?? "") >= RESUMABLE_PROTOCOL;
    const callId = resumes ? newId("cal") : undefined;
    const stop = new AbortController();
    // A dropped connection cancels the call, as the client would have; a resumable call's record stays.
    const onDrop = () => stop.abort();
    request.signal.addEventListener("abort", onDrop, { once: true });
    session.calls.set(key, stop);
    const resumable: Resumable | undefined = callId ? { tokenId: session.tokenId, handOver: () => stop.abort() } : undefined;
    if (resumable) this.#resumable.add(resumable);
    const { progressToken } = call;
    return callStream({
      requestId: call.id,
      callId,
      retryMs: this.relay.config.streamRetryMs,
      headers: { "mcp-session-id": session.id },
      run: (send) =>
        callBlocking(this.relay, toolContext(this.relay, caller, session.server), call.tool, call.args, {
          signal: stop.signal,
          onProgress: progressToken === undefined ? undefined : (waitedMs) => send(progress(progressToken, waitedMs)),
          record: callId ? { id: callId, sessionId: session.id, requestId: call.id, progressToken } : undefined,
          // Cancelled, dropped or handed over: nobody reads a result (a resumable client resumes).
        }).catch(() => undefined),
      cancel: () => stop.abort(),
      ended: () => {
        request.signal.removeEventListener("abort", onDrop);
        if (session.calls.get(key) === stop) session.calls.delete(key);
        if (resumable) this.#resumable.delete(resumable);
        session.lastSeen = Date.now();
      },
    });
  }

  /**
   * `GET` with `Last-Event-ID`: the call that event belongs to, followed again from its turn on this
   * process, its result sent with the original JSON-RPC request id. A call whose result event the
   * client already has is not answered twice.
   */
  private async resume(session: Session, caller: Caller, request: Request, lastEventId: string): Promise<Response> {
    const m = /^(cal_[0-9a-z]+):(\w+)$/.exec(lastEventId);
    const record = m ? await this.relay.waiting.calls.get(m[1]) : undefined;
    if (!m || !record || record.sessionId !== session.id) return jsonRpcError(404, -32000, `${problem("call.unknown").message}`);
    if (m[2] === "done") return new Response(null, { status: 204, headers: { "mcp-session-id": session.id } });
    const { waiting, config } = this.relay;
    const tool = TOOLS_BY_NAME.get(record.tool as never);
    const blocking = tool?.kind === "blocking" ? tool : undefined;
    const callId = record.id;
    const requestId = JSON.parse(record.requestId) as RequestId;
    const progressToken = record.progressToken === null ? undefined : (JSON.parse(record.progressToken) as string | number);
    const stop = new AbortController();
    const onDrop = () => stop.abort();
    request.signal.addEventListener("abort", onDrop, { once: true });
    const resumable: Resumable = { tokenId: session.tokenId, handOver: () => stop.abort() };
    this.#resumable.add(resumable);
    return callStream({
      requestId,
      callId,
      retryMs: config.streamRetryMs,
      headers: { "mcp-session-id": session.id },
      run: async (send) => {
        try {
          const reply = await waiting.follow(caller, record.askId!, {
            from: record.fromTurn,
            signal: stop.signal,
            budgetMs: blocking ? budgetOf(blocking, config.waitBudgetMs) : config.waitBudgetMs,
            progressEveryMs: config.progressEveryMs,
            onProgress: progressToken === undefined ? undefined : (ms) => send(progress(progressToken, ms)),
          });
          return blocking ? await blockingResult(blocking, toolContext(this.relay, caller, session.server), reply) : toolResult(reply);
        } catch (e) {
          // Dropped or handed over: the client resumes again, from the same record.
          if (stop.signal.aborted) return undefined;
          return toolError(e);
        }
      },
      cancel: () => stop.abort(),
      ended: () => {
        request.signal.removeEventListener("abort", onDrop);
        this.#resumable.delete(resumable);
      },
    });
  }

  /**
   * Refuses requests whose Host or Origin is not this relay: a web page cannot reach /mcp. A loopback
   * name is accepted on any port, as the SDK's own check does (a proxy in front of the relay has its
   * own port); DNS rebinding needs a name of the attacker's, which only the public URL may be.
   */
  private assertTrustedOrigin(request: Request): void {
    const host = (request.headers.get("host") ?? requestUrl(request).host).toLowerCase();
    // Read on first use: the public URL is settled once the server listens, before any request.
    const publicHost = (this.#publicHost ??= new URL(this.relay.config.publicUrl).host.toLowerCase());
    if (host !== publicHost && !LOCAL_HOSTS.has(hostname(host))) throw problem("origin.refused", `Host ${host} is not this relay.`);
    const origin = request.headers.get("origin");
    if (!origin) return;
    let originHost: string;
    try {
      originHost = new URL(origin).host.toLowerCase();
    } catch {
      throw problem("origin.refused");
    }
    const allowed = originHost === host || originHost === publicHost || this.relay.config.allowedOrigins.includes(origin);
    if (!allowed) throw problem("origin.refused", `Origin ${origin} is not allowed.`);
  }

  #publicHost?: string;

  /** Idle sessions leave memory; sessions idle past their expiry, and their calls, leave the store. */
  private async sweep(): Promise<void> {
    const now = Date.now();
    for (const [id, s] of this.#sessions) {
      if (s.active === 0 && now - s.lastSeen > SESSION_IN_MEMORY_MS) this.drop(id);
    }
    const before = new Date(now - this.relay.config.sessionIdleMs).toISOString();
    const expired = await this.relay.sessions.deleteIdle(before);
    for (const id of expired) this.drop(id);
    await this.relay.waiting.calls.deleteForSessions(expired);
    await this.relay.waiting.calls.deleteBefore(before);
  }

  /** A revoked token's sessions end, with their streams and calls, on this process and in the store. */
  private async endRevoked(tokenIds: Set<string>): Promise<void> {
    for (const r of [...this.#resumable]) if (tokenIds.has(r.tokenId)) r.handOver();
    for (const [id, s] of this.#sessions) {
      if (!tokenIds.has(s.tokenId)) continue;
      this.drop(id);
      await this.relay.waiting.calls.deleteForSessions(await this.relay.sessions.deleteForToken(s.tokenHash));
    }
  }

  private drop(id: string): void {
    const s = this.#sessions.get(id);
    if (!s) return;
    this.#sessions.delete(id);
    for (const stop of s.calls.values()) stop.abort();
    void s.server.close().catch(() => {});
  }

  /**
   * Before the relay stops: resumable streams are closed after their priming event, so their clients
   * resume on the next process; every other waiting call gets `pending`. Sessions stay in the store.
   */
  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#unwatch();
    for (const r of [...this.#resumable]) r.handOver();
    this.relay.waiting.releaseAll();
    const deadline = Date.now() + RELEASE_MS;
    while (this.relay.waiting.count > 0 && Date.now() < deadline) await Bun.sleep(10);
    // The results are queued on their streams; give them a moment to reach the sockets.
    await Bun.sleep(50);
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((s) => s.server.close().catch(() => {})));
  }
}

/** Feeds a rebuilt transport the session's `initialize` and `initialized`, as the client once sent them. */
async function replayInitialize(transport: WebStandardStreamableHTTPServerTransport, id: string, params: unknown): Promise<void> {
  const headers = { accept: "application/json, text/event-stream", "content-type": "application/json" };
  const url = "http://loopback.invalid/mcp";
  const init = await transport.handleRequest(new Request(url, { method: "POST", headers }), {
    parsedBody: { jsonrpc: "2.0", id: "loopback-restore", method: "initialize", params },
  });
  await init.text();
  const version = (params as { protocolVersion?: string }).protocolVersion ?? "";
  await transport.handleRequest(new Request(url, { method: "POST", headers: { ...headers, "mcp-session-id": id, "mcp-protocol-version": version } }), {
    parsedBody: { jsonrpc: "2.0", method: "notifications/initialized" },
  });
}

const OPENED = encoder.encode(": open\n\n");

/**
 * Bun holds a streamed response's headers back until its first chunk, so a client would not see an
 * SSE stream start until the first progress or keepalive (a blocking call in a batch, which the SDK
 * carries). An SSE comment first sends them at once.
 */
function openedAtOnce(response: Response): Response {
  if (!response.body || !response.headers.get("content-type")?.startsWith("text/event-stream")) return response;
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>({
    start: (controller) => controller.enqueue(OPENED),
  });
  // A client that goes away cancels `readable`, and piping passes that on to the SDK's stream.
  void response.body.pipeTo(writable).catch(() => {});
  return new Response(readable, { status: response.status, headers: response.headers });
}

/** `localhost` of `localhost:8370`, `[::1]` of `[::1]:8370`. */
function hostname(host: string): string {
  return host.replace(/:\d*$/, "");
}

/** A blocking tool call the relay carries itself (see `blockingCall`). */
interface BlockingCall {
  id: RequestId;
  tool: BlockingTool;
  args: unknown;
  progressToken?: string | number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is string | number => typeof v === "string" || Number.isSafeInteger(v);

/**
 * One `tools/call` of a blocking tool, not as a task, in exactly the shape and with the headers the
 * SDK's transport accepts; anything else (a batch, a task, a malformed request) goes to the SDK, which
 * answers it as it always has.
 */
function blockingCall(request: Request, body: unknown): BlockingCall | undefined {
  if (!isObject(body) || body.jsonrpc !== "2.0" || body.method !== "tools/call" || !isId(body.id)) return undefined;
  // The SDK's JSON-RPC request is strict about its own keys.
  for (const key in body) if (key !== "jsonrpc" && key !== "id" && key !== "method" && key !== "params") return undefined;
  const params = body.params;
  if (!isObject(params) || typeof params.name !== "string" || params.task !== undefined) return undefined;
  const tool = TOOLS_BY_NAME.get(params.name as never);
  if (tool?.kind !== "blocking") return undefined;
  if (params.arguments !== undefined && !isObject(params.arguments)) return undefined;
  const meta = params._meta;
  if (meta !== undefined && (!isObject(meta) || meta[RELATED_TASK_META_KEY] !== undefined || (meta.progressToken !== undefined && !isId(meta.progressToken)))) return undefined;
  const accept = request.headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return undefined;
  if ((request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase() !== "application/json") return undefined;
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  return { id: body.id, tool, args: params.arguments ?? {}, progressToken: meta?.progressToken as string | number | undefined };
}

function cancelledIds(body: unknown): RequestId[] {
  const messages = (Array.isArray(body) ? body : [body]) as unknown[];
  return messages.flatMap((m) => (isObject(m) && m.method === "notifications/cancelled" && isObject(m.params) && isId(m.params.requestId) ? [m.params.requestId] : []));
}

function requestIds(body: unknown): (string | number)[] {
  const messages = (Array.isArray(body) ? body : [body]) as JSONRPCMessage[];
  return messages.flatMap((m) => (m && typeof m === "object" && "method" in m && "id" in m && m.id !== undefined ? [m.id] : []));
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}
