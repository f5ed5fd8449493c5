import type { Ask, Reply } from "@loopback/shared/generated/types";
import { RelayError, describeError } from "../relay/relay-error";
import type { Session } from "../inbox/session";

export interface PointDraft {
  text: string;
  resolved: boolean;
}

/**
 * What the person has typed on one ask, kept while they move between asks, and how sending it went.
 * A refused reply keeps every word; only a reply the relay took clears it.
 */
export class Draft {
  selected = $state<string[]>([]);
  text = $state("");
  verdict = $state<"approved" | "changes_requested">("approved");
  askingBack = $state(false);
  followUp = $state("");
  points = $state<Record<string, PointDraft>>({});
  confirmingDismiss = $state(false);
  sending = $state(false);
  error = $state<string | null>(null);

  /** While a reply is on its way (or held back), what it was built from must not change. */
  get locked(): boolean {
    return this.sending;
  }

  point(id: string): PointDraft {
    return (this.points[id] ??= { text: "", resolved: false });
  }
}

const drafts = new Map<string, Draft>();

export function draftFor(askId: string): Draft {
  let draft = drafts.get(askId);
  if (!draft) drafts.set(askId, (draft = new Draft()));
  return draft;
}

export function forgetDraft(askId: string): void {
  drafts.delete(askId);
}

/** Sends a reply; on success the ask moves on and the draft is dropped, on refusal the relay's words show. */
export async function sendReply(session: Session, ask: Ask, draft: Draft, reply: Reply): Promise<boolean> {
  if (draft.sending) return false;
  const client = session.client;
  if (!client) {
    draft.error = "Not connected to a relay: open the settings to connect.";
    return false;
  }
  draft.sending = true;
  draft.error = null;
  try {
    const updated = await client.reply(ask.id, reply);
    // Forgotten before the new ask shows, so a briefing's next round starts from an empty draft.
    forgetDraft(ask.id);
    session.applied(updated);
    return true;
  } catch (e) {
    if (e instanceof RelayError && e.kind === "reload" && session.surface === "web") location.reload();
    draft.error = describeError(e);
    return false;
  } finally {
    draft.sending = false;
  }
}
