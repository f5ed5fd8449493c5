import type { Ask, AskKind, Whoami } from "@loopback/shared/generated/types";
import { inlineMarkdownText } from "../blocks/inline-markdown";

export const isOpen = (ask: Ask) => ask.status !== "closed";

export const KIND_LABEL: Record<AskKind, string> = { question: "Question", review: "Review", briefing: "Briefing" };

/** A question's text split for showing: its first line as the title, and whatever follows it. */
export function questionParts(question: string): { title: string; rest: string } {
  const lines = question.split("\n");
  const at = lines.findIndex((line) => line.trim());
  if (at === -1) return { title: "", rest: "" };
  return { title: stripBlockMarker(lines[at]!), rest: lines.slice(at + 1).join("\n").trim() };
}

/**
 * The line an ask is known by, as inline markdown: a review's or briefing's title, a question's
 * first line without its block marker (`#`, `>`, `-`).
 */
export function askTitle(ask: Ask): string {
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

/** The same line as plain text, where no markup can show. */
export const askTitleText = (ask: Ask) => inlineMarkdownText(askTitle(ask));

function stripBlockMarker(line: string): string {
  return line.replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d+\.\s+)/, "").trim();
}

/** Who an ask came from, as the person reads it: "Your agent" for their own, else "Ada's agent". */
export function raisedByLabel(ask: Ask, who: Whoami | null): string | null {
  const by = ask.raisedBy;
  if (!by) return null;
  // "me" is the name the relay gives its first person when it knows no other.
  if (by.id === who?.actor.id || by.name === "me") return "Your agent";
  return by.name ? `${by.name}'s agent` : null;
}

/** Open asks: the person's move first, then the agent's; newest first within each. */
export function compareOpen(a: Ask, b: Ask): number {
  const rank = (ask: Ask) => (ask.status === "awaiting_human" ? 0 : 1);
  return rank(a) - rank(b) || b.createdAt.localeCompare(a.createdAt);
}

/** Closed asks, the most recently closed first. */
export function compareClosed(a: Ask, b: Ask): number {
  return (b.closedAt ?? b.updatedAt).localeCompare(a.closedAt ?? a.updatedAt);
}

/** Whether `incoming` is at least as new as `current`, so a late echo never rolls an ask back. */
export const isNewer = (incoming: Ask, current: Ask | undefined) =>
  !current || incoming.updatedAt >= current.updatedAt;

/** A short age: "now", "4m", "3h", "2d", or a date. */
export function age(iso: string, now: number): string {
  const seconds = Math.max(0, (now - Date.parse(iso)) / 1000);
  if (seconds < 45) return "now";
  if (seconds < 3600) return `${Math.round(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)}h`;
  if (seconds < 7 * 86_400) return `${Math.round(seconds / 86_400)}d`;
  return new Date(iso).toLocaleDateString(undefined, { month: "short", day: "numeric" });
}

/** "just now", "4m ago", or a date. */
export function ago(iso: string, now: number): string {
  const short = age(iso, now);
  if (short === "now") return "just now";
  return /^\d+[mhd]$/.test(short) ? `${short} ago` : short;
}

export function fullTime(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** What the status means to the person, in a few words. */
export function statusLabel(ask: Ask): string {
  if (ask.status === "awaiting_human") return "Your move";
  if (ask.status === "awaiting_agent") return "Agent's move";
  return closedLabel(ask);
}

export function closedLabel(ask: Ask): string {
  const reply = [...ask.thread].reverse().find((e) => e.author === "human")?.reply;
  switch (reply?.outcome) {
    case "answered":
      return "Answered";
    case "approved":
      return "Approved";
    case "changes_requested":
      return "Changes requested";
    case "dismissed":
      return "Dismissed";
    case "responded":
      return "Resolved";
    default:
      return "Closed";
  }
}
