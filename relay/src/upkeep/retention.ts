// Retention: closed asks and the images only they showed are kept `LOOPBACK_RETENTION_DAYS` after
// they closed (0 keeps them for ever); the record of which turns were pushed is kept a day, long
// after the last replica could have pushed the same turn. Open asks are never removed.
import type { Pruned, Store } from "../storage/store.ts";

export const DEFAULT_RETENTION_DAYS = 90;
/** How often a relay runs retention by itself (and once when it starts). */
export const RETENTION_EVERY_MS = 24 * 60 * 60_000;
const PUSH_NOTICES_KEPT_MS = 24 * 60 * 60_000;
const DAY_MS = 24 * 60 * 60_000;

export function prune(store: Store, retentionDays: number, now = Date.now()): Promise<Pruned> {
  // An empty cutoff is before every time: nothing is old enough.
  const closedBefore = retentionDays > 0 ? new Date(now - retentionDays * DAY_MS).toISOString() : "";
  return store.upkeep.prune(closedBefore, new Date(now - PUSH_NOTICES_KEPT_MS).toISOString());
}
