// Configuration, from the environment, with defaults that work on a laptop.
import { resolve } from "node:path";
import { buildStamp } from "./build-stamp.ts";
import { LOG_LEVELS, type LogFormat, type LogLevelName } from "./logging/log.ts";
import { DEFAULT_RETENTION_DAYS } from "./upkeep/retention.ts";

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
  /** Asks one token may have open at once (not closed), counted on every replica together. */
  maxOpenAsksPerToken: number;
  /** Asks one space may have open at once: what one inbox must be able to load. */
  maxOpenAsksPerSpace: number;
  /** Event sockets one token may hold open at once on one relay. */
  maxSocketsPerToken: number;
  /** Who runs the relay, for push services (VAPID `sub`): a `mailto:` or `https:` URL. */
  pushContact?: string;
  /** The least a log line must weigh to be written: `debug`, `info` (an access line per request), `warn`, `error`. */
  logLevel: LogLevelName;
  /** `text` for a person, `json` (one object per line) for a log stack. */
  logFormat: LogFormat;
  /** Lets a scraper elsewhere read /metrics, sent as a bearer token; without it only this machine may. */
  metricsToken?: string;
  /** Closed asks and their images are deleted this many days after they closed; 0 keeps them. */
  retentionDays: number;
  /** `LOOPBACK_PUSH_HOSTS`: the only push-service hosts pushed to, wherever they resolve; empty: any host on the public internet. */
  pushHosts: string[];
  /** `LOOPBACK_PUSH_DNS`: DNS servers to resolve push endpoints with; empty: the system's resolver. */
  pushDns: string[];
  maxDevicesPerPerson: number;
  /** A connection that sends nothing for this long is closed, unless it carries an authenticated stream. */
  idleTimeoutMs: number;
  /** The most image bytes the uploads of one token may hold stored. */
  uploadQuotaTokenBytes: number;
  /** The most image bytes the uploads of one space may hold stored. */
  uploadQuotaSpaceBytes: number;
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
export const DEFAULT_MAX_OPEN_ASKS_PER_TOKEN = 100;
/** An inbox's first load carries every open ask whole (up to ~256 KiB each): 200 of them is ~50 MiB. */
export const DEFAULT_MAX_OPEN_ASKS_PER_SPACE = 200;
export const DEFAULT_MAX_SOCKETS_PER_TOKEN = 20;
export const DEFAULT_EVENT_TICKET_TTL_S = 60;
export const DEFAULT_MAX_EVENT_TICKETS = 20; // per token, unused at once
export const DEFAULT_MAX_UPLOAD_TICKETS = 50; // per token, unused at once
export const DEFAULT_SWEEP_EVERY_S = 60;
export const DEFAULT_REVOCATION_CHECK_S = 2;
export const DEFAULT_MAX_DEVICES_PER_PERSON = 20;
export const DEFAULT_IDLE_TIMEOUT_S = 30;
export const DEFAULT_UPLOAD_QUOTA_TOKEN_MB = 200;
export const DEFAULT_UPLOAD_QUOTA_SPACE_MB = 1_000;

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
  const mebibytes = (name: string, fallback: number) => {
    const raw = env[name];
    const n = raw === undefined || raw === "" ? fallback : Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number of MiB, not "${raw}"`);
    return Math.round(n * 1024 * 1024);
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
    maxOpenAsksPerToken: count("LOOPBACK_MAX_OPEN_ASKS_PER_TOKEN", DEFAULT_MAX_OPEN_ASKS_PER_TOKEN),
    maxOpenAsksPerSpace: count("LOOPBACK_MAX_OPEN_ASKS_PER_SPACE", DEFAULT_MAX_OPEN_ASKS_PER_SPACE),
    maxSocketsPerToken: count("LOOPBACK_MAX_SOCKETS_PER_TOKEN", DEFAULT_MAX_SOCKETS_PER_TOKEN),
    pushContact: env.LOOPBACK_PUSH_CONTACT || undefined,
    pushHosts: list(env.LOOPBACK_PUSH_HOSTS),
    pushDns: list(env.LOOPBACK_PUSH_DNS),
    maxDevicesPerPerson: count("LOOPBACK_MAX_DEVICES_PER_PERSON", DEFAULT_MAX_DEVICES_PER_PERSON),
    idleTimeoutMs: idleTimeout(env.LOOPBACK_IDLE_TIMEOUT_S),
    uploadQuotaTokenBytes: mebibytes("LOOPBACK_UPLOAD_QUOTA_TOKEN_MB", DEFAULT_UPLOAD_QUOTA_TOKEN_MB),
    uploadQuotaSpaceBytes: mebibytes("LOOPBACK_UPLOAD_QUOTA_SPACE_MB", DEFAULT_UPLOAD_QUOTA_SPACE_MB),
    allowedOrigins: list(env.LOOPBACK_ALLOWED_ORIGINS),
    trustedProxies: list(env.LOOPBACK_TRUSTED_PROXIES),
    logLevel: oneOf("LOOPBACK_LOG_LEVEL", env.LOOPBACK_LOG_LEVEL, Object.keys(LOG_LEVELS) as LogLevelName[], "info"),
    logFormat: oneOf("LOOPBACK_LOG_FORMAT", env.LOOPBACK_LOG_FORMAT, ["text", "json"] as const, "text"),
    metricsToken: env.LOOPBACK_METRICS_TOKEN || undefined,
    retentionDays: days("LOOPBACK_RETENTION_DAYS", env.LOOPBACK_RETENTION_DAYS, DEFAULT_RETENTION_DAYS),
  };
}

function days(name: string, raw: string | undefined, fallback: number): number {
  const n = raw === undefined || raw.trim() === "" ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number of days (0 keeps everything), not "${raw}"`);
  return n;
}

function oneOf<T extends string>(name: string, raw: string | undefined, allowed: readonly T[], fallback: T): T {
  const value = (raw ?? "").trim().toLowerCase();
  if (value === "") return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new Error(`${name} must be one of ${allowed.join(", ")}, not "${raw}"`);
  return value as T;
}

/** Whole seconds from 1 to 255: the range Bun's server takes. */
function idleTimeout(raw: string | undefined): number {
  const n = raw === undefined || raw === "" ? DEFAULT_IDLE_TIMEOUT_S : Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 255) throw new Error(`LOOPBACK_IDLE_TIMEOUT_S must be a whole number of seconds from 1 to 255, not "${raw}"`);
  return n * 1000;
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

