// Configuration, from the environment, with defaults that work on a laptop.
import { resolve } from "node:path";
import { buildStamp } from "./build-stamp.ts";

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** Where people and agents reach the relay: upload and inbox links start with it. */
  publicUrl: string;
  /** How long a blocking tool waits before returning `pending`, so no client timeout cuts it. */
  waitBudgetMs: number;
  /** How often a waiting tool sends progress, for clients that reset their timeout on it. */
  progressEveryMs: number;
  /** How long an upload ticket works after it is issued. */
  uploadTtlMs: number;
  /** Origins allowed to call /mcp besides the relay's own (DNS-rebinding protection). */
  allowedOrigins: string[];
  /** When this build was made, sent as `Loopback-Build`. */
  build: string;
}

export const DEFAULT_PORT = 8370;
export const DEFAULT_WAIT_BUDGET_S = 50;
export const DEFAULT_PROGRESS_EVERY_S = 10;
export const DEFAULT_UPLOAD_TTL_S = 15 * 60;

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
  return {
    host,
    port,
    dataDir: resolve(env.LOOPBACK_DATA || ".loopback"),
    publicUrl: (env.LOOPBACK_PUBLIC_URL || `http://${shownHost}:${port}`).replace(/\/+$/, ""),
    waitBudgetMs: seconds("LOOPBACK_WAIT_BUDGET_S", DEFAULT_WAIT_BUDGET_S),
    progressEveryMs: seconds("LOOPBACK_PROGRESS_EVERY_S", DEFAULT_PROGRESS_EVERY_S),
    uploadTtlMs: seconds("LOOPBACK_UPLOAD_TTL_S", DEFAULT_UPLOAD_TTL_S),
    build: buildStamp(env),
    allowedOrigins: (env.LOOPBACK_ALLOWED_ORIGINS ?? "").split(",").map((s) => s.trim()).filter(Boolean),
  };
}
