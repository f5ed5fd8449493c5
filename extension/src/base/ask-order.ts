// Which asks are open, the order the inbox lists them in, and which copy of an ask is the newer.
import { isWhole, type ListedAsk } from "../relay/listed-ask";

export const isOpen = (ask: ListedAsk) => ask.status !== "closed";

/** Open asks: the person's move first, then the agent's; newest first within each. */
export function compareOpen(a: ListedAsk, b: ListedAsk): number {
  const rank = (ask: ListedAsk) => (ask.status === "awaiting_human" ? 0 : 1);
  return rank(a) - rank(b) || b.createdAt.localeCompare(a.createdAt);
}

/** Closed asks, the most recently closed first. */
export function compareClosed(a: ListedAsk, b: ListedAsk): number {
  return (b.closedAt ?? b.updatedAt).localeCompare(a.closedAt ?? a.updatedAt);
}

/**
 * Whether `incoming` is at least as new as `current`, so a late echo never rolls an ask back; at
 * the same change a summary never takes the place of the whole ask it summarizes.
 */
export const isNewer = (incoming: ListedAsk, current: ListedAsk | undefined) =>
  !current ||
  incoming.updatedAt > current.updatedAt ||
  (incoming.updatedAt === current.updatedAt && (isWhole(incoming) || !isWhole(current)));
