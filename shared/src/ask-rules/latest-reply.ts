import type { Ask, HumanEntry } from "../generated/types.ts";

/** How many turns the person has taken on the ask. */
export function replyCount(ask: Ask): number {
  return ask.thread.reduce((n, entry) => (entry.author === "human" ? n + 1 : n), 0);
}

/** The person's most recent turn on the ask, if they have taken one. */
export function latestReply(ask: Ask): HumanEntry | undefined {
  return ask.thread.findLast((entry) => entry.author === "human");
}
