// A task's time to live: what it gets when it asks for none, the most it may have, and its request
// checked before anything is opened for it: a stored task keeps it in a whole-number column, and a
// value that column refuses must never reach the store half-way through a call (an ask opened, its task not).
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

export const TASK_DEFAULT_TTL_MS = 24 * 60 * 60_000;
export const TASK_MAX_TTL_MS = 7 * 24 * 60 * 60_000;

/** Refuses a `task.ttl` that is not a whole number of milliseconds of at least 1 (absent: the default). */
export function assertTaskTtl(task: { ttl?: unknown }): void {
  const ttl = task.ttl;
  if (ttl === undefined || ttl === null) return;
  if (typeof ttl !== "number" || !Number.isSafeInteger(ttl) || ttl < 1) {
    throw new McpError(ErrorCode.InvalidParams, "`task.ttl` must be a whole number of milliseconds, at least 1.");
  }
}
