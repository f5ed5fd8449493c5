// What a push says about an ask: only what its notification shows. Never the ask's content, code,
// diffs or images: the push service stores and forwards it, encrypted but outside the relay.
import type { ApprovalPrompt, Ask, PushNotice } from "@loopback/shared/generated/types";

export const TITLE_CHARS = 120;

function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim()) ?? "";
  return line.trim().replace(/^#+\s*/, "");
}

function cut(text: string): string {
  return text.length <= TITLE_CHARS ? text : `${text.slice(0, TITLE_CHARS - 1)}…`;
}

/** What an approval is for, in a line: the command's first line, the file, the address; never contents. */
function approvalTitle({ tool, touches }: ApprovalPrompt): string {
  switch (touches.type) {
    case "command":
      return `${tool}: ${firstLine(touches.command)}`;
    case "edit":
    case "write":
      return `${tool}: ${touches.file}`;
    case "fetch":
      return `${tool}: ${URL.canParse(touches.url) ? new URL(touches.url).host : "an address"}`;
    case "other":
      return tool;
  }
}

function titleOf(ask: Ask): string {
  switch (ask.kind) {
    case "question":
      return firstLine(ask.prompt.question) || "Question";
    case "approval":
      return approvalTitle(ask.prompt);
    default:
      return ask.prompt.title;
  }
}

export function noticeFor(ask: Ask, reason: PushNotice["reason"], publicUrl: string): PushNotice {
  const title = cut(titleOf(ask));
  const notice: PushNotice = { askId: ask.id, kind: ask.kind, reason, title, url: `${publicUrl}/inbox/#/ask/${encodeURIComponent(ask.id)}` };
  if (ask.project) notice.project = ask.project;
  if (ask.kind === "question" && ask.prompt.options.length === 2 && !ask.prompt.multiple) {
    notice.options = ask.prompt.options.map((o) => o.label);
  }
  return notice;
}
