// Who may see an ask. A person's token is the inbox: it sees every ask of its space. An agent's token
// acts for its person through MCP and sees only the asks its own person raised, by any of that
// person's agents (a restarted agent with a new token picks its ask up with `wait_for_reply`);
// another person's asks in the same space are as absent to it as another space's.
import type { Ask } from "@loopback/shared/generated/types";
import { problem } from "@loopback/shared/problems";
import type { Caller } from "../storage/caller.ts";
import type { AskRecords, VersionedAsk } from "../storage/store.ts";

export function canSee(caller: Caller, spaceId: string, ask: Ask): boolean {
  if (spaceId !== caller.spaceId) return false;
  return caller.tokenKind === "person" || ask.raisedBy?.id === caller.person.id;
}

/**
 * The stored ask `caller` may see: another space's, or another person's to an agent token, is as
 * absent as one that never existed. `read` is the ask's read when it was begun before the caller was
 * known (while the token was checked): nothing of it is shown unless the caller may see it.
 */
export async function askSeenBy(records: Pick<AskRecords, "get">, caller: Caller, askId: string, read = records.get(askId)): Promise<VersionedAsk> {
  const stored = await read;
  if (!stored || !canSee(caller, stored.spaceId, stored.ask)) throw problem("ask.not_found");
  return stored;
}

/** The inbox itself (its snapshot, history, asks by id and event socket) is the person's, never an agent token's. */
export function assertPerson(caller: Caller): Caller {
  if (caller.tokenKind !== "person") throw problem("auth.person_required");
  return caller;
}
