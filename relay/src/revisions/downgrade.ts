// What this relay writes, in the shape of the older revision a client names: newer fields it could
// not read are folded into words it can (docs/design/versioned-messages.md, "Serving older clients").
import type { Ask, AskEvent, AskPage, Entry, Reply, ReviewAsk, Snapshot } from "@loopback/shared/generated/types";
import type { AskService, WholeSnapshot } from "../asks/ask-service.ts";
import type { Caller } from "../auth/gate.ts";
import { REVISION } from "@loopback/shared/generated/revision";
import { foldComments } from "@loopback/shared/ask-rules/index";
import { problem } from "@loopback/shared/problems";

/** A review reply with comments, for a reader of revision 1 or 2: the comments become text. */
function foldedReply(ask: ReviewAsk, reply: Reply): Reply {
  if (reply.outcome === "changes_requested") {
    const { comments, ...rest } = reply;
    return comments?.length ? { ...rest, feedback: foldComments(ask.prompt.content, reply.feedback, comments) } : rest;
  }
  if (reply.outcome === "approved") {
    const { comments, ...rest } = reply;
    return comments?.length ? { ...rest, note: foldComments(ask.prompt.content, reply.note, comments) } : rest;
  }
  return reply;
}

/**
 * Whether a reader of `revision` is shown the ask at all. Approvals are revision 4's: an older inbox
 * could show neither the command nor the edit, nor send a decision, and a person must never allow
 * what they could not see; so they are absent from its snapshots, pages, frames and reads.
 */
export const isShownTo = (ask: Ask, revision: string): boolean => ask.kind !== "approval" || Number(revision) >= 4;

/** The ask as a reader of `revision` reads it; an ask it is not shown is not found. */
export function downgradeAsk(ask: Ask, revision: string): Ask {
  if (!isShownTo(ask, revision)) throw problem("ask.not_found");
  if (Number(revision) >= 3 || ask.kind !== "review") return ask;
  const thread = ask.thread.map((entry): Entry => (entry.author === "human" ? { ...entry, reply: foldedReply(ask, entry.reply) } : entry));
  return { ...ask, thread };
}

const downgradeAll = (asks: Ask[], revision: string): Ask[] => asks.filter((a) => isShownTo(a, revision)).map((a) => downgradeAsk(a, revision));

export type { WholeSnapshot };

/** How much of the space a snapshot of revisions up to 4 carries, as JSON; any ask beyond is read by its id. */
export const WHOLE_SNAPSHOT_MAX_BYTES = 8 * 1024 * 1024;

/**
 * The snapshot as a reader of `revision` reads it: summaries and the newest few asks whole from
 * revision 5, every ask whole (within `WHOLE_SNAPSHOT_MAX_BYTES`) before it.
 */
export async function snapshotFor(asks: Pick<AskService, "snapshot" | "wholeSnapshot">, caller: Caller, revision: string): Promise<Snapshot | WholeSnapshot> {
  if (Number(revision) >= 5) return asks.snapshot(caller);
  const s = await asks.wholeSnapshot(caller, WHOLE_SNAPSHOT_MAX_BYTES);
  return { open: downgradeAll(s.open, revision), recent: downgradeAll(s.recent, revision) };
}

export const downgradePage = (page: AskPage, revision: string): AskPage =>
  revision === REVISION ? page : { ...page, items: downgradeAll(page.items, revision) };

/** The frame as a reader of `revision` reads it, or nothing for a change to an ask it is not shown. */
export function downgradeEvent(event: AskEvent, revision: string): AskEvent | undefined {
  return isShownTo(event.ask, revision) ? { ...event, ask: downgradeAsk(event.ask, revision) } : undefined;
}
