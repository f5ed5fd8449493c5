// The words an ask is shown by: its title, its kind, who raised it, and what its status means.
import type { AskKind, ReplySummary, Whoami } from "@loopback/shared/generated/types";
import { approvalFor, escapeInlineMarkdown } from "../approval/approval-labels";
import { isWhole, type ListedAsk } from "../relay/listed-ask";

export const KIND_LABEL: Record<AskKind, string> = { question: "Question", review: "Review", briefing: "Briefing", approval: "Approval" };

/** A question's text split for showing: its first line as the title, and whatever follows it. */
export function questionParts(question: string): { title: string; rest: string } {
  const lines = question.split("\n");
  const at = lines.findIndex((line) => line.trim());
  if (at === -1) return { title: "", rest: "" };
  return { title: stripBlockMarker(lines[at]!), rest: lines.slice(at + 1).join("\n").trim() };
}

/**
 * The line an ask is known by, as inline markdown: a review's or briefing's title, a question's
 * first line without its block marker (`#`, `>`, `-`), what an approval is for.
 */
export function askTitle(ask: ListedAsk): string {
  // The relay makes a summary's title by the same rule.
  if (!isWhole(ask)) return ask.title;
  if (ask.kind === "approval") return escapeInlineMarkdown(approvalFor(ask.prompt));
  if (ask.kind !== "question") return ask.prompt.title;
  const { title } = questionParts(ask.prompt.question);
  return title.length > TITLE_MAX ? `${title.slice(0, TITLE_MAX)}…` : title || "Question";
}

const TITLE_MAX = 200;

/** What of a question its title does not already show: the lines after it, or all of it when the title was cut. */
export function questionBody(question: string): string {
  const { title, rest } = questionParts(question);
  return title.length > TITLE_MAX ? question.trim() : rest;
}

function stripBlockMarker(line: string): string {
  return line.replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d+\.\s+)/, "").trim();
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

/** How much of an answer a closed row shows. */
const ANSWER_SHOWN_CHARS = 40;

export function closedLabel(ask: ListedAsk): string {
  if (!isWhole(ask)) return closedSummaryLabel(ask.lastReply);
  const reply = [...ask.thread].reverse().find((e) => e.author === "human")?.reply;
  switch (reply?.outcome) {
    case "answered": {
      // What was answered, not only that it was: the choices, else the first words.
      const said = reply.selected.join(", ") || (reply.text ?? "").trim();
      return said ? `Answered: ${said.length > ANSWER_SHOWN_CHARS ? `${said.slice(0, ANSWER_SHOWN_CHARS)}…` : said}` : "Answered";
    }
    case "approved":
      return "Approved";
    case "changes_requested":
      return "Changes requested";
    case "dismissed":
      return "Dismissed";
    case "responded":
      return "Resolved";
    case "allowed":
      return reply.scope === "session" ? "Allowed for the session" : "Allowed";
    case "denied":
      return reply.stop ? "Denied, agent stopped" : "Denied";
    default:
      return "Closed";
  }
}

/** The same words from a summary's last reply, which says what was answered but not an allow's scope or a deny's stop. */
function closedSummaryLabel(reply: ReplySummary | undefined): string {
  switch (reply?.outcome) {
    case "answered":
      // The relay cuts what was said as a closed row shows it.
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
