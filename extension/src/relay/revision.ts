import { REVISION, REVISIONS } from "@loopback/shared/generated/revision";
import { REVISION_HEADER } from "@loopback/shared/wire-names";

/** How the relay's revision compares with the one this client writes. */
export type RevisionGap = "same" | "relay_newer" | "relay_older";

export function compareRevision(relayRevision: string | null): RevisionGap {
  if (!relayRevision || relayRevision === REVISION) return "same";
  const theirs = (REVISIONS as readonly string[]).indexOf(relayRevision);
  // A revision we have never heard of can only come from a newer relay.
  if (theirs === -1) return "relay_newer";
  return theirs > REVISIONS.indexOf(REVISION) ? "relay_newer" : "relay_older";
}

export { REVISION, REVISION_HEADER };
