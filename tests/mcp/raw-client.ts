// The agent's side of MCP by hand, posing as a real client by what it sends: the protocol version it
// negotiates, its clientInfo name, its kind of progress token. For what the SDK client does not let
// a test do (read event ids, resume a stream by hand, cancel and then resume as Claude Code does).
import { questionInput } from "./mcp-scene.ts";

/** What each real client sends, as measured against its binary. */
export const CLIENTS = {
  "claude-code": { name: "claude-code", version: "2.1.328", protocolVersion: "2025-11-25", progressToken: (n: number): string | number => `cc-${n}` },
  codex: { name: "codex-mcp-client", version: "0.169.0", protocolVersion: "2025-06-18", progressToken: (n: number): string | number => n },
  "gemini-cli": { name: "gemini-cli-mcp-client", version: "0.61.0", protocolVersion: "2025-06-18", progressToken: (_n: number): string | number => crypto.randomUUID() },
} as const;

export type ClientKind = keyof typeof CLIENTS;

export class RawClient {
  sessionId = "";

  constructor(
    readonly url: string,
    readonly token: string,
    readonly protocolVersion: string,
    readonly clientInfo: { name: string; version: string } = { name: "raw", version: "1" },
  ) {}

  static as(kind: ClientKind, url: string, token: string): RawClient {
    const c = CLIENTS[kind];
    return new RawClient(url, token, c.protocolVersion, { name: c.name, version: c.version });
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      Authorization: `Bearer ${this.token}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...(this.sessionId ? { "mcp-session-id": this.sessionId, "mcp-protocol-version": this.protocolVersion } : {}),
      ...extra,
    };
  }

  async connect(): Promise<this> {
    const init = await fetch(`${this.url}/mcp`, {
      method: "POST",
      headers: this.headers(),
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: this.protocolVersion, capabilities: {}, clientInfo: this.clientInfo } }),
    });
    if (!init.ok) throw new Error(`initialize answered ${init.status}: ${await init.text()}`);
    this.sessionId = init.headers.get("mcp-session-id")!;
    await init.text();
    await this.notify("notifications/initialized");
    return this;
  }

  notify(method: string, params?: Record<string, unknown>): Promise<Response> {
    return fetch(`${this.url}/mcp`, { method: "POST", headers: this.headers(), body: JSON.stringify({ jsonrpc: "2.0", method, ...(params ? { params } : {}) }) }).then(async (r) => {
      await r.text();
      return r;
    });
  }

  call(id: number | string, project: string, opts: { signal?: AbortSignal; progressToken?: string | number; tool?: string; args?: Record<string, unknown> } = {}): Promise<Response> {
    const params = {
      name: opts.tool ?? "ask_question",
      arguments: opts.args ?? questionInput(project),
      ...(opts.progressToken === undefined ? {} : { _meta: { progressToken: opts.progressToken } }),
    };
    return fetch(`${this.url}/mcp`, { method: "POST", headers: this.headers(), body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }), signal: opts.signal });
  }

  resume(lastEventId: string): Promise<Response> {
    return fetch(`${this.url}/mcp`, { headers: { ...this.headers({ Accept: "text/event-stream" }), "last-event-id": lastEventId } });
  }
}
