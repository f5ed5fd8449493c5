// MCP over Streamable HTTP at /mcp: one SDK Server and transport per session, each bound to the
// token that opened it. Checks Host and Origin (DNS rebinding), answers a refused token with a plain
// 401 (no OAuth discovery is advertised, since none is served), and tells the SDK when an HTTP
// connection drops, which it does not notice by itself.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { isInitializeRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { problem } from "@loopback/shared/problems";
import type { Caller } from "../auth/gate.ts";
import { problemResponse } from "../http/problem-response.ts";
import { readBody } from "../read-capped.ts";
import type { Relay } from "../relay.ts";
import { createMcpServer } from "./session.ts";

/** A tool input is at most 256 KiB of JSON; escaping and the JSON-RPC envelope fit in four times that. */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;
/** A session nobody has used for this long is closed; an agent that comes back re-initializes. */
export const SESSION_IDLE_MS = 6 * 60 * 60_000;
const SSE_KEEPALIVE_MS = 15_000;
/** How long a stopping relay waits for released calls to return. */
const RELEASE_MS = 2_000;

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  caller: Caller;
  token: string;
  active: number;
  lastSeen: number;
}

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

export class McpEndpoint {
  #sessions = new Map<string, Session>();
  #sweeper: ReturnType<typeof setInterval>;

  constructor(private relay: Relay) {
    this.#sweeper = setInterval(() => this.sweep(), 60_000);
    this.#sweeper.unref?.();
  }

  async handle(request: Request, address: string): Promise<Response> {
    try {
      this.assertTrustedOrigin(request);
      const authorization = request.headers.get("authorization");
      const caller = this.relay.authenticate(authorization, address);
      const token = authorization!.replace(/^Bearer\s+/i, "").trim();
      const sessionId = request.headers.get("mcp-session-id");

      let body: unknown;
      if (request.method === "POST") {
        const bytes = await readBody(request, MAX_MCP_BODY_BYTES, "input.too_large");
        try {
          body = JSON.parse(new TextDecoder().decode(bytes));
        } catch {
          return jsonRpcError(400, -32700, "Parse error: the body is not JSON.");
        }
      }

      let session = sessionId ? this.#sessions.get(sessionId) : undefined;
      if (sessionId && (!session || session.token !== token)) {
        // Unknown, expired, or another token's: the client starts a new session.
        return jsonRpcError(404, -32001, "Session not found: initialize a new session.");
      }
      if (!session) {
        const messages = Array.isArray(body) ? body : [body];
        if (request.method !== "POST" || !messages.some((m) => isInitializeRequest(m))) {
          return jsonRpcError(400, -32000, "Bad Request: no session; send initialize first.");
        }
        session = await this.open(caller, token);
      }
      return await this.forward(session, request, body);
    } catch (e) {
      return problemResponse(e);
    }
  }

  private async open(caller: Caller, token: string): Promise<Session> {
    const server = createMcpServer(this.relay, caller);
    const session = { server, caller, token, active: 0, lastSeen: Date.now() } as Session;
    session.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      keepAliveMs: SSE_KEEPALIVE_MS,
      onsessioninitialized: (id) => {
        this.#sessions.set(id, session);
      },
      onsessionclosed: (id) => {
        this.#sessions.delete(id);
      },
    });
    await server.connect(session.transport);
    return session;
  }

  private async forward(session: Session, request: Request, body: unknown): Promise<Response> {
    session.active++;
    session.lastSeen = Date.now();
    const ids = requestIds(body);
    const dropped = () => {
      // The connection carrying these calls is gone: cancel them as if the client had, so their
      // asks stop showing `waiting` and nothing is handed to a reader who left.
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
   * Refuses requests whose Host or Origin is not this relay: a web page cannot reach /mcp. A loopback
   * name is accepted on any port, as the SDK's own check does (a proxy in front of the relay has its
   * own port); DNS rebinding needs a name of the attacker's, which only the public URL may be.
   */
  #publicHost?: string;

  private assertTrustedOrigin(request: Request): void {
    const host = (request.headers.get("host") ?? new URL(request.url).host).toLowerCase();
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

  private sweep(): void {
    const now = Date.now();
    for (const [id, s] of this.#sessions) {
      if (s.active === 0 && now - s.lastSeen > SESSION_IDLE_MS) {
        this.#sessions.delete(id);
        void s.server.close().catch(() => {});
      }
    }
  }

  /** Hands every waiting call `pending` before the sessions close, so no agent waits on a relay that is gone. */
  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.relay.asks.releaseAll();
    const deadline = Date.now() + RELEASE_MS;
    while (this.relay.asks.waitingCount > 0 && Date.now() < deadline) await Bun.sleep(10);
    // The results are queued on their streams; give them a moment to reach the sockets.
    await Bun.sleep(50);
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((s) => s.server.close().catch(() => {})));
  }
}

const OPENED = new TextEncoder().encode(": open\n\n");

/**
 * Bun holds a streamed response's headers back until its first chunk, so a client would not see an
 * SSE stream start until the first progress or keepalive. An SSE comment first sends them at once.
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

function requestIds(body: unknown): (string | number)[] {
  const messages = (Array.isArray(body) ? body : [body]) as JSONRPCMessage[];
  return messages.flatMap((m) => (m && typeof m === "object" && "method" in m && "id" in m && m.id !== undefined ? [m.id] : []));
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status });
}
