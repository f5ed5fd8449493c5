// MCP sessions. They live in the store, so any relay process serves a known `Mcp-Session-Id`,
// rebuilding the SDK's Server and transport from what `initialize` said; in memory only while used.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { problem } from "@loopback/shared/problems";
import type { Caller } from "../auth/gate.ts";
import type { Clock, Timer } from "../clock.ts";
import type { Config } from "../config.ts";
import type { CallRecords, SessionRecords, SessionRow } from "../storage/store.ts";
import { log } from "../logging/log.ts";
import type { BlockingCall } from "./blocking-call.ts";

/** A session idle this long leaves memory (its row stays: the next request rebuilds it). */
const SESSION_IN_MEMORY_MS = 30 * 60_000;
/** How often a session's last use is written down: its expiry is counted in days. */
const TOUCH_EVERY_MS = 10 * 60_000;
const SSE_KEEPALIVE_MS = 15_000;
const SWEEP_EVERY_MS = 60_000;
/** How many of a token's least recently used sessions are looked at to find one nobody holds. */
const EVICTION_CANDIDATES = 50;

export interface Session {
  /** Set once the SDK took the session's `initialize`. */
  id: string;
  /** The id its row is stored under. */
  rowId: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  tokenHash: string;
  tokenId: string;
  /** Requests the SDK is answering now. */
  active: number;
  /** SSE streams of the SDK's open now (the client's standing `GET` stream, a batch's stream). */
  streams: number;
  /** When last used, and last written to its row, on the monotonic clock. */
  lastSeen: number;
  touched: number;
  /** Blocking calls on the relay's own streams, by JSON-RPC id, to cancel when the client says so. */
  calls: Map<string, BlockingCall>;
}

export interface SessionServices {
  sessions: SessionRecords;
  calls: CallRecords;
  clock: Clock;
  config: Pick<Config, "maxSessionsPerToken" | "sessionIdleMs">;
}

export class Sessions {
  #live = new Map<string, Session>();
  #restoring = new Map<string, Promise<Session>>();
  #sweeper: Timer;

  constructor(
    private services: SessionServices,
    /** The SDK Server a session of this caller answers with. */
    private serve: (caller: Caller) => Server,
  ) {
    this.#sweeper = services.clock.every(SWEEP_EVERY_MS, () => this.sweep().catch((e) => log("mcp").warn("session sweep failed", { error: e })));
  }

  /** The session in memory, or rebuilt from its row, when it belongs to the caller's token. */
  async find(id: string, caller: Caller): Promise<Session | undefined> {
    const live = this.#live.get(id);
    if (live) return live.tokenHash === caller.tokenHash ? live : undefined;
    const row = await this.services.sessions.get(id);
    if (!row || row.tokenHash !== caller.tokenHash) return undefined;
    let restoring = this.#restoring.get(id);
    if (!restoring) {
      restoring = this.open(caller, row, JSON.parse(row.initialize)).finally(() => this.#restoring.delete(id));
      this.#restoring.set(id, restoring);
    }
    return restoring;
  }

  /**
   * A new session for `initialize`, stored before it is answered (the client's next request may reach
   * another replica), and counted and stored in one step, so concurrent initializes on any replica
   * cannot pass the token's cap. At the cap the least recently used session that nobody holds (no
   * stream open, no call waiting) makes room: clients that never end their sessions (Gemini CLI sends
   * no `DELETE`) leave them behind on every launch. Only a token whose every session is in use is
   * refused. The caller forwards the client's own `initialize` to it next, and `discard`s it when the
   * SDK refused that.
   */
  async create(caller: Caller, initialize: unknown): Promise<Session> {
    const at = this.services.clock.now();
    const row: SessionRow = { id: crypto.randomUUID(), tokenHash: caller.tokenHash, initialize: JSON.stringify(initialize), createdAt: at, lastSeenAt: at };
    const max = this.services.config.maxSessionsPerToken;
    // Another initialize (on any replica) may take the room one made: room is made until it holds.
    while (!(await this.services.sessions.insert(row, max))) {
      if (!(await this.makeRoom(caller))) throw problem("sessions.too_many");
    }
    return this.open(caller, row, initialize, false);
  }

  /** A new session whose `initialize` the SDK refused: it never was one, and its row goes. */
  async discard(session: Session): Promise<void> {
    if (!session.id) await this.services.sessions.delete(session.rowId);
  }

  /** Lets the token's least recently used session go, unless it is in use here; whether one went. */
  private async makeRoom(caller: Caller): Promise<boolean> {
    for (const id of await this.services.sessions.leastRecentlyUsed(caller.tokenHash, EVICTION_CANDIDATES)) {
      const live = this.#live.get(id);
      if (live && (live.active > 0 || live.streams > 0 || live.calls.size > 0)) continue;
      this.drop(id);
      await this.services.sessions.delete(id);
      return true;
    }
    return false;
  }

  /**
   * A session's Server and transport over its stored row: new (`replay` false: the client's own
   * `initialize` is forwarded next), or rebuilt by replaying its `initialize` into a transport that
   * takes the stored id.
   */
  private async open(caller: Caller, row: SessionRow, initialize: unknown, replay = true): Promise<Session> {
    const now = this.services.clock.monoMs();
    const session = { tokenHash: caller.tokenHash, tokenId: caller.tokenId, rowId: row.id, active: 0, streams: 0, lastSeen: now, touched: now, calls: new Map() } as Session;
    session.server = this.serve(caller);
    session.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => row.id,
      keepAliveMs: SSE_KEEPALIVE_MS,
      onsessioninitialized: (id) => {
        session.id = id;
        this.#live.set(id, session);
      },
      // Only an explicit DELETE from the client: a relay that stops keeps its sessions.
      onsessionclosed: async (id) => {
        this.#live.delete(id);
        await this.services.sessions.delete(id);
      },
    });
    await session.server.connect(session.transport);
    if (replay) await replayInitialize(session.transport, row.id, initialize);
    return session;
  }

  /** Marks the session used now; its row hears of it now and then. */
  seen(session: Session): void {
    const now = this.services.clock.monoMs();
    session.lastSeen = now;
    if (now - session.touched > TOUCH_EVERY_MS) {
      session.touched = now;
      void this.services.sessions.touch(session.id, this.services.clock.now()).catch(() => {});
    }
  }

  /** Marks the session idle from now: its last request or call has just ended. */
  idleFrom(session: Session): void {
    session.lastSeen = this.services.clock.monoMs();
  }

  /** The tokens whose sessions are in memory (a revoked one's end). */
  tokenIds(): string[] {
    return [...this.#live.values()].map((s) => s.tokenId);
  }

  /** Idle sessions leave memory; sessions idle past their expiry, and their calls, leave the store. */
  private async sweep(): Promise<void> {
    const now = this.services.clock.monoMs();
    for (const [id, s] of this.#live) {
      if (s.active === 0 && s.calls.size === 0 && now - s.lastSeen > SESSION_IN_MEMORY_MS) this.drop(id);
    }
    const before = new Date(this.services.clock.steadyWallMs() - this.services.config.sessionIdleMs).toISOString();
    const expired = await this.services.sessions.deleteIdle(before);
    for (const id of expired) this.drop(id);
    await this.services.calls.deleteForSessions(expired);
    await this.services.calls.deleteBefore(before);
  }

  /** A revoked token's sessions end, with their calls, on this process and in the store. */
  async endForTokens(tokenIds: Set<string>): Promise<void> {
    for (const [id, s] of this.#live) {
      if (!tokenIds.has(s.tokenId)) continue;
      this.drop(id);
      await this.services.calls.deleteForSessions(await this.services.sessions.deleteForToken(s.tokenHash));
    }
  }

  private drop(id: string): void {
    const s = this.#live.get(id);
    if (!s) return;
    this.#live.delete(id);
    for (const call of s.calls.values()) call.revoke();
    void s.server.close().catch(() => {});
  }

  /** The relay stops: sessions leave memory and stay in the store. */
  async close(): Promise<void> {
    this.#sweeper.cancel();
    const sessions = [...this.#live.values()];
    this.#live.clear();
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
