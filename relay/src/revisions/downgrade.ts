// What this relay writes, in the shape of the older revision a client names: newer fields it could
// not read are folded into words it can (docs/design/versioned-messages.md, "Serving older clients").
import type { Ask, AskPage, Entry, Reply, ReviewAsk, ServerEvent, Snapshot } from "@loopback/shared/generated/types";
import { REVISION } from "@loopback/shared/generated/revision";
import { foldComments } from "@loopback/shared/ask-rules/index";

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

export function downgradeAsk(ask: Ask, revision: string): Ask {
  if (Number(revision) >= 3 || ask.kind !== "review") return ask;
  const thread = ask.thread.map((entry): Entry => (entry.author === "human" ? { ...entry, reply: foldedReply(ask, entry.reply) } : entry));
  return { ...ask, thread };
}

export const downgradeSnapshot = (s: Snapshot, revision: string): Snapshot =>
  revision === REVISION ? s : { open: s.open.map((a) => downgradeAsk(a, revision)), recent: s.recent.map((a) => downgradeAsk(a, revision)) };

export const downgradePage = (page: AskPage, revision: string): AskPage =>
  revision === REVISION ? page : { ...page, items: page.items.map((a) => downgradeAsk(a, revision)) };

export const downgradeEvent = (event: ServerEvent, revision: string): ServerEvent =>
  event.type === "snapshot" ? { ...event, snapshot: downgradeSnapshot(event.snapshot, revision) } : { ...event, ask: downgradeAsk(event.ask, revision) };
