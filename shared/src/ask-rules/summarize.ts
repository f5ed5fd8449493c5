import type { Ask, AskSummary, ReplySummary } from "../generated/types.ts";
import { approvalTitle, escapeInlineMarkdown } from "./approval-title.ts";
import { latestReply } from "./latest-reply.ts";

/** The longest question title a row shows, and the most of an answer a closed row shows. */
const TITLE_MAX_CHARS = 200;
const SAID_MAX_CHARS = 40;

/** A question's text split for showing: its first line as the title, and whatever follows it. */
export function questionParts(question: string): { title: string; rest: string } {
  const lines = question.split("\n");
  const at = lines.findIndex((line) => line.trim());
  if (at === -1) return { title: "", rest: "" };
  return { title: stripBlockMarker(lines[at]!), rest: lines.slice(at + 1).join("\n").trim() };
}

/** What of a question its title does not already show: the lines after it, or all of it when the title was cut. */
export function questionBody(question: string): string {
  const { title, rest } = questionParts(question);
  return title.length > TITLE_MAX_CHARS ? question.trim() : rest;
}

function stripBlockMarker(line: string): string {
  return line.replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d+\.\s+)/, "").trim();
}

/**
 * The line an ask is known by, as inline markdown: a review's or briefing's title, a question's
 * first line without its block marker (`#`, `>`, `-`), what an approval is for (escaped: a command
 * shows as typed).
 */
export function askTitle(ask: Ask): string {
  if (ask.kind === "approval") return escapeInlineMarkdown(approvalTitle(ask.prompt));
  if (ask.kind !== "question") return ask.prompt.title;
  const { title } = questionParts(ask.prompt.question);
  return title.length > TITLE_MAX_CHARS ? `${title.slice(0, TITLE_MAX_CHARS)}…` : title || "Question";
}

/** The person's last reply as a row names it: its outcome, and for an answer the choices or the first words. */
export function replySummary(ask: Ask): ReplySummary | undefined {
  const reply = latestReply(ask)?.reply;
  if (!reply) return undefined;
  if (reply.outcome !== "answered") return { outcome: reply.outcome };
  const said = reply.selected.join(", ") || (reply.text ?? "").trim();
  return said ? { outcome: "answered", said: said.length > SAID_MAX_CHARS ? `${said.slice(0, SAID_MAX_CHARS)}…` : said } : { outcome: "answered" };
}

/** What a list row shows of an ask, without its body. */
export function summarize(ask: Ask): AskSummary {
  const summary: AskSummary = { id: ask.id, kind: ask.kind, status: ask.status, waiting: ask.waiting, title: askTitle(ask), createdAt: ask.createdAt, updatedAt: ask.updatedAt };
  if (ask.project !== undefined) summary.project = ask.project;
  if (ask.client !== undefined) summary.client = ask.client;
  if (ask.raisedBy !== undefined) summary.raisedBy = ask.raisedBy;
  if (ask.kind === "review" && ask.revises !== undefined) summary.revises = ask.revises;
  const lastReply = replySummary(ask);
  if (lastReply) summary.lastReply = lastReply;
  if (ask.closedAt !== undefined) summary.closedAt = ask.closedAt;
  return summary;
}
