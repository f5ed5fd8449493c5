// What the relay knows of the MCP clients people run, by the name their `initialize` gives
// (`clientInfo.name`), as measured against their binaries: whether they resume a call's stream after
// it ends without a result (`GET` + `Last-Event-ID`), whatever protocol version they negotiate, and
// how long a blocking call may wait before their own timeout would cut it. Every `pending` costs the
// agent a model turn, so each wait ends just before the client's own limit.
import type { Config } from "../config.ts";

/** The first protocol version whose clients read an event without data (a priming event) and resume. */
export const RESUMABLE_PROTOCOL = "2025-11-25";

export interface ClientProfile {
  /** Resumes a blocking call's stream on a protocol older than RESUMABLE_PROTOCOL too. */
  resumesStreams: boolean;
  /** How long a blocking call waits before `pending`; unset: the relay's budget for unknown clients. */
  waitBudgetMs?: number;
}

const UNKNOWN: ClientProfile = { resumesStreams: false };

export const CLIENTS: Record<string, ClientProfile> = {
  // The TypeScript SDK's transport resumes once it has seen an event id. No hard tool timeout: a
  // 300 s idle timeout that the progress sent every LOOPBACK_PROGRESS_EVERY_S resets.
  "claude-code": { resumesStreams: true, waitBudgetMs: 30 * 60_000 },
  // rmcp resumes a request's stream once it has seen an event id. A 300 s tool timeout
  // (`tool_timeout_sec`) that progress does not reset.
  "codex-mcp-client": { resumesStreams: true, waitBudgetMs: 290_000 },
  // The TypeScript SDK it bundles resumes once it has seen an event id. A 600 s tool timeout that
  // progress does not reset.
  "gemini-cli-mcp-client": { resumesStreams: true, waitBudgetMs: 590_000 },
};

export function clientProfile(name: string | undefined): ClientProfile {
  return (name !== undefined && Object.hasOwn(CLIENTS, name) ? CLIENTS[name] : undefined) ?? UNKNOWN;
}

/** The protocol version a request says it speaks (the SDK refuses any it does not support). */
export const protocolOf = (request: Request): string => request.headers.get("mcp-protocol-version") ?? "";

/** Whether a client resumes a call's stream that ends without a result. */
export function resumesStreams(protocolVersion: string, clientName: string | undefined): boolean {
  return protocolVersion >= RESUMABLE_PROTOCOL || clientProfile(clientName).resumesStreams;
}

/**
 * How long a blocking call of this client waits before `pending`: as `LOOPBACK_CLIENT_WAIT_BUDGETS`
 * names it, else `LOOPBACK_WAIT_BUDGET_S` when set, else the client's own, else the unknown clients'.
 */
export function waitBudgetMs(config: Pick<Config, "waitBudgetMs" | "waitBudgetForAll" | "clientWaitBudgetsMs">, clientName: string | undefined): number {
  if (clientName !== undefined && Object.hasOwn(config.clientWaitBudgetsMs, clientName)) return config.clientWaitBudgetsMs[clientName];
  if (config.waitBudgetForAll) return config.waitBudgetMs;
  return clientProfile(clientName).waitBudgetMs ?? config.waitBudgetMs;
}
