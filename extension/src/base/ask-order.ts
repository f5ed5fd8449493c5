// Which asks are open, the order the inbox lists them in, and which copy of an ask is the newer.
import type { Ask } from "@loopback/shared/generated/types";

export const isOpen = (ask: Ask) => ask.status !== "closed";

/** Open asks: the person's move first, then the agent's; newest first within each. */
export function compareOpen(a: Ask, b: Ask): number {
  const rank = (ask: Ask) => (ask.status === "awaiting_human" ? 0 : 1);
  return rank(a) - rank(b) || b.createdAt.localeCompare(a.createdAt);
}

/** Closed asks, the most recently closed first. */
export function compareClosed(a: Ask, b: Ask): number {
  return (b.closedAt ?? b.updatedAt).localeCompare(a.closedAt ?? a.updatedAt);
}

/** Whether `incoming` is at least as new as `current`, so a late echo never rolls an ask back. */
export const isNewer = (incoming: Ask, current: Ask | undefined) =>
  !current || incoming.updatedAt >= current.updatedAt;
