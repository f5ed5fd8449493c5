import type { Actor, Ask, HumanEntry, Reply } from "../generated/types.ts";
import { openPoints } from "./briefing-points.ts";
import { checkReply } from "./check-reply.ts";

/**
 * The ask after the person's reply: a follow-up, or a briefing reply that leaves a point open, hands
 * the move to the agent; every other reply closes the ask. Throws what `checkReply` refuses.
 */
export function applyReply<A extends Ask>(ask: A, reply: Reply, by: Actor | undefined, at: string): A {
  const refused = checkReply(ask, reply);
  if (refused) throw refused;
  const entry: HumanEntry = { author: "human", reply, ...(by !== undefined && { by }), at };
  const next: A = { ...ask, thread: [...ask.thread, entry], updatedAt: at };
  const handsBack = reply.outcome === "follow_up" || (reply.outcome === "responded" && openPoints(next).length > 0);
  return handsBack ? { ...next, status: "awaiting_agent" } : { ...next, status: "closed", closedAt: at };
}
