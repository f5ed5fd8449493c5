// The words an ask is shown by: its title, its kind, who raised it, and what its status means.
import type { AskKind, ReplySummary, Whoami } from "@loopback/shared/generated/types";
import { askTitle as titleOf, latestReply, replySummary } from "@loopback/shared/ask-rules/index";
import { isWhole, type ListedAsk } from "../relay/listed-ask";

export { questionBody } from "@loopback/shared/ask-rules/index";

export const KIND_LABEL: Record<AskKind, string> = { question: "Question", review: "Review", briefing: "Briefing", approval: "Approval" };

/**
 * The line an ask is known by, as inline markdown: a summary's title as the relay made it, a whole
 * ask's by the same shared rule (a question's first line without its block marker, what an approval
 * is for), so a row reads the same before and after its body arrives.
 */
export function askTitle(ask: ListedAsk): string {
  return isWhole(ask) ? titleOf(ask) : ask.title;
}

/** Who an ask came from, as the person reads it: "Your agent" for their own, else "Ada's agent". */
export function raisedByLabel(ask: ListedAsk, who: Whoami | null): string | null {
  const by = ask.raisedBy;
  if (!by) return null;
  // "me" is the name the relay gives its first person when it knows no other.
  if (by.id === who?.actor.id || by.name === "me") return "Your agent";
  return by.name ? `${by.name}'s agent` : null;
}

/** What the status means to the person, in a few words. */
export function statusLabel(ask: ListedAsk): string {
  if (ask.status === "awaiting_human") return "Your move";
  if (ask.status === "awaiting_agent") return "Agent's move";
  return closedLabel(ask);
}

/**
 * What a closed ask ended with: its last reply's outcome, what was answered (as the relay words it
 * for a summary), and of a whole ask also an allow's scope or a deny's stop.
 */
export function closedLabel(ask: ListedAsk): string {
  if (!isWhole(ask)) return closedSummaryLabel(ask.lastReply);
  const reply = latestReply(ask)?.reply;
  if (reply?.outcome === "allowed" && reply.scope === "session") return "Allowed for the session";
  if (reply?.outcome === "denied" && reply.stop) return "Denied, agent stopped";
  return closedSummaryLabel(replySummary(ask));
}

/** The words for a last reply as a summary carries it: what was answered, not an allow's scope or a deny's stop. */
function closedSummaryLabel(reply: ReplySummary | undefined): string {
  switch (reply?.outcome) {
    case "answered":
      // Cut as a closed row shows it (the relay cuts a summary's by the same rule).
      return reply.said ? `Answered: ${reply.said}` : "Answered";
    case "approved":
      return "Approved";
    case "changes_requested":
      return "Changes requested";
    case "dismissed":
      return "Dismissed";
    case "responded":
      return "Resolved";
    case "allowed":
      return "Allowed";
    case "denied":
      return "Denied";
    default:
      return "Closed";
  }
}
