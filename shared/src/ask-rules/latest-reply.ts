import type { Ask, HumanEntry } from "../generated/types.ts";

/** The person's most recent turn on the ask, if they have taken one. */
export function latestReply(ask: Ask): HumanEntry | undefined {
  return ask.thread.findLast((entry) => entry.author === "human");
}
