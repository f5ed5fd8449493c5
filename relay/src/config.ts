// Configuration, from the environment, with defaults that work on a laptop.
import { resolve } from "node:path";
import { buildStamp } from "./build-stamp.ts";

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** `LOOPBACK_DATABASE_URL`: every replica on one PostgreSQL database instead of the SQLite file in `dataDir`. */
  databaseUrl: string | null;
  /** Where people and agents reach the relay: upload and inbox links start with it. */
  publicUrl: string;
  /** How long a blocking tool waits before returning `pending`, so no client timeout cuts it. */
  waitBudgetMs: number;
  /** How often a waiting tool sends progress, for clients that reset their timeout on it. */
  progressEveryMs: number;
  /** Whether `LOOPBACK_WAIT_BUDGET_S` was set: then it is every client's budget, not only unknown clients'. */
  waitBudgetForAll: boolean;
  /** `LOOPBACK_CLIENT_WAIT_BUDGETS` (`name=seconds,…`, by `clientInfo.name`): over every other budget. */
  clientWaitBudgetsMs: Record<string, number>;
  /** How long an upload ticket works after it is issued. */
  uploadTtlMs: number;
  /** Origins allowed to call /mcp besides the relay's own (DNS-rebinding protection). */
  allowedOrigins: string[];
  /** How long an event ticket works after it is issued. */
  eventTicketTtlMs: number;
  /** Unused, unexpired event tickets one token may hold at once. */
  maxEventTicketsPerToken: number;
  /** Unused, unexpired upload tickets one token may hold at once. */
  maxUploadTicketsPerToken: number;
  /** How often expired tickets and never-used upload rows are swept away. */
  sweepEveryMs: number;
  /** How often open sockets' tokens are checked for revocation: the longest a revoked token's socket stays open. */
  revocationCheckMs: number;
  /** Reverse proxies whose X-Forwarded-For is believed (addresses or CIDR ranges); none by default. */
  trustedProxies: string[];
  /** When this build was made, sent as `Loopback-Build`. */
  build: string;
  /** How long a handed-over reply stays claimable by asking again with the same input. */
  reclaimMs: number;
  /** An MCP session nobody used for this long is forgotten; only then is `404` answered. */
  sessionIdleMs: number;
  /** The SSE `retry` a resumable call's stream carries: how soon a client reconnects after a drop. */
  streamRetryMs: number;
  maxSessionsPerToken: number;
  maxWaitingPerToken: number;
  /** Who runs the relay, for push services (VAPID `sub`): a `mailto:` or `https:` URL. */
  pushContact?: string;
}

export const DEFAULT_PORT = 8370;
export const DEFAULT_WAIT_BUDGET_S = 50;
export const DEFAULT_PROGRESS_EVERY_S = 10;
export const DEFAULT_UPLOAD_TTL_S = 15 * 60;
export const DEFAULT_RECLAIM_S = 10 * 60;
export const DEFAULT_SESSION_IDLE_S = 7 * 24 * 60 * 60;
/** The SDK client tries twice, `retry` apart: 3 s covers a restart of up to about 6 s. */
export const DEFAULT_STREAM_RETRY_S = 3;
export const DEFAULT_MAX_SESSIONS_PER_TOKEN = 1_000;
export const DEFAULT_MAX_WAITING_PER_TOKEN = 2_000;
export const DEFAULT_EVENT_TICKET_TTL_S = 60;
export const DEFAULT_MAX_EVENT_TICKETS = 20; // per token, unused at once
export const DEFAULT_MAX_UPLOAD_TICKETS = 50; // per token, unused at once
export const DEFAULT_SWEEP_EVERY_S = 60;
export const DEFAULT_REVOCATION_CHECK_S = 2;

export function configFromEnv(env: Record<string, string | undefined> = process.env): Config {
  const host = env.LOOPBACK_HOST || "127.0.0.1";
  const port = Number(env.LOOPBACK_PORT || DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`LOOPBACK_PORT must be a port number, not "${env.LOOPBACK_PORT}"`);
  const shownHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host;
  const seconds = (name: string, fallback: number) => {
    const raw = env[name];
    const n = raw === undefined || raw === "" ? fallback : Number(raw);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number of seconds, not "${raw}"`);
    return n * 1000;
  };
  const count = (name: string, fallback: number) => {
    const raw = env[name];
    const n = raw === undefined || raw === "" ? fallback : Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of at least 1, not "${raw}"`);
    return n;
  };
  return {
    host,
    port,
    dataDir: resolve(env.LOOPBACK_DATA || ".loopback"),
    databaseUrl: databaseUrl(env.LOOPBACK_DATABASE_URL),
    publicUrl: (env.LOOPBACK_PUBLIC_URL || `http://${shownHost}:${port}`).replace(/\/+$/, ""),
    waitBudgetMs: seconds("LOOPBACK_WAIT_BUDGET_S", DEFAULT_WAIT_BUDGET_S),
    progressEveryMs: seconds("LOOPBACK_PROGRESS_EVERY_S", DEFAULT_PROGRESS_EVERY_S),
    waitBudgetForAll: (env.LOOPBACK_WAIT_BUDGET_S ?? "") !== "",
    clientWaitBudgetsMs: clientBudgets(env.LOOPBACK_CLIENT_WAIT_BUDGETS),
    uploadTtlMs: seconds("LOOPBACK_UPLOAD_TTL_S", DEFAULT_UPLOAD_TTL_S),
    eventTicketTtlMs: seconds("LOOPBACK_EVENT_TICKET_TTL_S", DEFAULT_EVENT_TICKET_TTL_S),
    maxEventTicketsPerToken: count("LOOPBACK_MAX_EVENT_TICKETS", DEFAULT_MAX_EVENT_TICKETS),
    maxUploadTicketsPerToken: count("LOOPBACK_MAX_UPLOAD_TICKETS", DEFAULT_MAX_UPLOAD_TICKETS),
    sweepEveryMs: seconds("LOOPBACK_SWEEP_EVERY_S", DEFAULT_SWEEP_EVERY_S),
    revocationCheckMs: seconds("LOOPBACK_REVOCATION_CHECK_S", DEFAULT_REVOCATION_CHECK_S),
    build: buildStamp(env),
    reclaimMs: seconds("LOOPBACK_RECLAIM_S", DEFAULT_RECLAIM_S),
    sessionIdleMs: seconds("LOOPBACK_SESSION_IDLE_S", DEFAULT_SESSION_IDLE_S),
    streamRetryMs: seconds("LOOPBACK_STREAM_RETRY_S", DEFAULT_STREAM_RETRY_S),
    maxSessionsPerToken: count("LOOPBACK_MAX_SESSIONS_PER_TOKEN", DEFAULT_MAX_SESSIONS_PER_TOKEN),
    maxWaitingPerToken: count("LOOPBACK_MAX_WAITING_PER_TOKEN", DEFAULT_MAX_WAITING_PER_TOKEN),
    pushContact: env.LOOPBACK_PUSH_CONTACT || undefined,
    allowedOrigins: list(env.LOOPBACK_ALLOWED_ORIGINS),
    trustedProxies: list(env.LOOPBACK_TRUSTED_PROXIES),
  };
}

/** `claude-code=1800,codex-mcp-client=290` as milliseconds by client name. */
function clientBudgets(raw: string | undefined): Record<string, number> {
  const budgets: Record<string, number> = {};
  for (const entry of list(raw)) {
    const [name, value] = entry.split("=").map((s) => s.trim());
    const n = Number(value);
    if (!name || value === undefined || value === "" || !Number.isFinite(n) || n < 0) throw new Error(`LOOPBACK_CLIENT_WAIT_BUDGETS must be name=seconds pairs, not "${entry}"`);
    budgets[name] = n * 1000;
  }
  return budgets;
}

const list = (raw: string | undefined) => (raw ?? "").split(",").map((s) => s.trim()).filter(Boolean);

/** A PostgreSQL connection URL (`postgres://` or `postgresql://`), or null for the SQLite file. */
function databaseUrl(raw: string | undefined): string | null {
  if (raw === undefined || raw.trim() === "") return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error("LOOPBACK_DATABASE_URL must be a URL like postgres://user:password@host:5432/loopback");
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new Error(`LOOPBACK_DATABASE_URL must start with postgres:// or postgresql://, not "${url.protocol}//"`);
  }
  if (!url.hostname || url.pathname.replace(/^\//, "") === "") throw new Error("LOOPBACK_DATABASE_URL must name a host and a database: postgres://user:password@host:5432/loopback");
  return url.toString();
}

