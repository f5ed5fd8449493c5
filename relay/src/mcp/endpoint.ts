// MCP over Streamable HTTP at /mcp: checks Host and Origin, authenticates, and hands each request to
// its place. A blocking call sent alone is carried by the relay's own stream (call-response.ts), with
// event ids of its durable record for a client that resumes: after a crash, a restart or a dropped
// connection the client resumes it (`GET` + `Last-Event-ID`) on whichever process answers.
// Everything else goes to the session's SDK Server (sdk-request.ts). A refused token gets 401 (the
// server adds its WWW-Authenticate: http/protected-resource.ts).
import { keptInitialize, MAX_INITIALIZE_BYTES } from "./kept-initialize.ts";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { problem } from "@loopback/shared/problems";
import type { Caller } from "../auth/gate.ts";
import type { RevocationWatch } from "../auth/revocation-watch.ts";
import { assertAllowedOrigin, assertOwnHost } from "../http/allowed-origin.ts";
import { problemResponse } from "../http/problem-response.ts";
import { readCappedBody } from "../read-capped-body.ts";
import { newId } from "../ids.ts";
import type { SessionRecords } from "../storage/store.ts";
import { BlockingCalls, within } from "./blocking-call.ts";
import { callResponse, type CallResponseDeps } from "./call-response.ts";
import { streamEventOf } from "./call-stream.ts";
import { blockingCallOf, jsonRpcError, type BlockingCallRequest } from "./json-rpc.ts";
import { forward, type SdkRequestDeps } from "./sdk-request.ts";
import { createMcpServer, toolContext, type McpServices } from "./session.ts";
import { Sessions, type Session } from "./sessions.ts";
import { protocolOf, resumesStreams } from "./clients.ts";

/** A tool input is at most 256 KiB of JSON; escaping and the JSON-RPC envelope fit in four times that. */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;
/** Decodes a body, bytes that are not UTF-8 as U+FFFD (the JSON parse then decides). Stateless, so one serves every request. */
const UTF8 = new TextDecoder();
/** How long a stopping relay waits for its calls' last words to be written. */
const RELEASE_MS = 2_000;

export interface McpEndpointDeps extends McpServices {
  revocations: RevocationWatch;
  sessions: SessionRecords;
  authenticate(authorization: string | null, address: string): Promise<Caller>;
}

export class McpEndpoint {
  #calls: BlockingCalls;
  #sessions: Sessions;
  /** Responses still being written, which a stopping relay lets finish. */
  #writing = new Set<Promise<void>>();
  #unwatch: () => void;
  /** What the SDK's requests and the relay's own call streams use of the endpoint. */
  #deps: SdkRequestDeps & CallResponseDeps;

  constructor(private relay: McpEndpointDeps) {
    const { waiting, clock, config, store } = relay;
    this.#calls = new BlockingCalls({ waiting, asks: relay.asks, calls: store.calls, clock, config });
    this.#sessions = new Sessions({ sessions: relay.sessions, calls: store.calls, clock, config }, (caller) => createMcpServer(relay, caller, this.#calls));
    this.#deps = { calls: this.#calls, sessions: this.#sessions, track: (written) => this.#track(written), retryMs: config.streamRetryMs };
    this.#unwatch = relay.revocations.watch({
      held: () => new Set([...this.#sessions.tokenIds(), ...this.#calls.tokenIds()]),
      revoked: (tokenIds) => {
        this.#calls.endForTokens(tokenIds);
        return this.#sessions.endForTokens(tokenIds);
      },
    });
  }

  async handle(request: Request, address: string): Promise<Response> {
    try {
      assertOwnHost(request, this.relay.config);
      assertAllowedOrigin(request, this.relay.config);
      const caller = await this.relay.authenticate(request.headers.get("authorization"), address);
      let body: unknown;
      if (request.method === "POST") {
        const bytes = await readCappedBody(request, MAX_MCP_BODY_BYTES, "input.too_large");
        try {
          body = JSON.parse(UTF8.decode(bytes));
        } catch {
          return jsonRpcError(400, -32700, "Parse error: the body is not JSON.");
        }
      }
      const sessionId = request.headers.get("mcp-session-id");
      if (sessionId) {
        const session = await this.#sessions.find(sessionId, caller);
        // Unknown, expired, or another token's: the client starts a new session.
        if (!session) return jsonRpcError(404, -32001, "Session not found: initialize a new session.");
        const lastEventId = request.headers.get("last-event-id");
        if (request.method === "GET" && lastEventId) return await this.resume(session, caller, request, lastEventId);
        const call = request.method === "POST" ? blockingCallOf(request, body) : undefined;
        if (call) return await this.carry(session, caller, request, call);
        return await forward(this.#deps, session, request, body);
      }
      const init = (Array.isArray(body) ? body : [body]).find((m) => isInitializeRequest(m));
      if (request.method !== "POST" || !init) return jsonRpcError(400, -32000, "Bad Request: no session; send initialize first.");
      // The SDK and the session's row hold only what rebuilding the session needs.
      const kept = keptInitialize(init.params);
      if (!kept) return jsonRpcError(400, -32602, `Invalid params: an initialize request may be at most ${MAX_INITIALIZE_BYTES / 1024} KiB.`);
      init.params = kept as typeof init.params;
      const session = await this.#sessions.create(caller, kept);
      const response = await forward(this.#deps, session, request, body);
      await this.#sessions.discard(session);
      return response;
    } catch (e) {
      return problemResponse(e);
    }
  }

  /**
   * A blocking call on the relay's own stream, with the durable record a resume follows it by. The
   * ask is opened first and the stream built after, so the stream's set-up is not on the ask's way to
   * the person; its headers then follow the inbox's frame, and the agent waits either way.
   */
  private async carry(session: Session, caller: Caller, request: Request, sent: BlockingCallRequest): Promise<Response> {
    this.#sessions.seen(session);
    const client = session.server.getClientVersion()?.name;
    const resumes = resumesStreams(protocolOf(request), client);
    const call = this.#calls.open(caller, { id: newId("cal"), sessionId: session.id, requestId: sent.id, progressToken: sent.progressToken, resumes }, client);
    // Known by its request id from the start: the client may cancel it while its ask is opened.
    session.calls.set(JSON.stringify(sent.id), call);
    const opening = await call.open(toolContext(this.relay, caller, session.server), sent.tool, sent.args);
    return callResponse(this.#deps, session, request, call, (onProgress, onResult) => call.follow(opening, onProgress, onResult));
  }

  /**
   * `GET` with `Last-Event-ID`: the call that event belongs to, followed again from its turn on this
   * process, its result sent with the original JSON-RPC request id. A call whose result event the
   * client already has is not answered twice.
   */
  private async resume(session: Session, caller: Caller, request: Request, lastEventId: string): Promise<Response> {
    const event = streamEventOf(lastEventId);
    const resumable = event && (await this.#calls.resumable(event.callId, session.id));
    if (!resumable) return jsonRpcError(404, -32000, problem("call.unknown").message);
    if (event.done) return new Response(null, { status: 204, headers: { "mcp-session-id": session.id } });
    const { record, durable } = resumable;
    const call = this.#calls.open(caller, durable, session.server.getClientVersion()?.name);
    return callResponse(this.#deps, session, request, call, (onProgress, onResult) => call.resume(record, onProgress, onResult));
  }

  #track(writing: Promise<void>): void {
    this.#writing.add(writing);
    void writing.finally(() => this.#writing.delete(writing));
  }

  /**
   * Before the relay stops: calls with a durable record end their streams without a result, so their
   * clients resume on the next process; every other waiting call gets `pending`. Sessions stay in the store.
   */
  async close(): Promise<void> {
    this.#unwatch();
    await this.#calls.handOverAll(RELEASE_MS);
    await within(RELEASE_MS, [...this.#writing]);
    await this.#sessions.close();
  }
}
