import type { AskSummary, Snapshot } from "@loopback/shared/generated/types";
import { listedOver, type ListedAsk } from "./listed-ask";

/** A snapshot as the inbox lists it: each ask whole where its body is at hand, else its summary. */
export interface ListedSnapshot {
  open: ListedAsk[];
  recent: ListedAsk[];
}

/**
 * Lists a snapshot at once, reading nothing: an ask it carries whole, or one held whole already at
 * the same change (`held`), is listed whole; any other by its summary, its body read when it is
 * opened or about to be.
 */
export function listedSnapshot(snapshot: Snapshot, held: (id: string) => ListedAsk | undefined): ListedSnapshot {
  const carried = new Map(snapshot.whole.map((a) => [a.id, a]));
  const listed = (s: AskSummary): ListedAsk => listedOver(carried.get(s.id), listedOver(held(s.id), s));
  return { open: snapshot.open.map(listed), recent: snapshot.recent.map(listed) };
}
