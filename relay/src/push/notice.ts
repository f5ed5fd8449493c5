// What a push says about an ask: only what its notification shows. Never the ask's content, code,
// diffs or images: the push service stores and forwards it, encrypted but outside the relay.
import type { Ask, PushNotice } from "@loopback/shared/generated/types";
import { approvalTitle, questionParts } from "@loopback/shared/ask-rules/index";

export const TITLE_CHARS = 120;

function cut(text: string): string {
  return text.length <= TITLE_CHARS ? text : `${text.slice(0, TITLE_CHARS - 1)}…`;
}

function titleOf(ask: Ask): string {
  switch (ask.kind) {
    case "question":
      // The first line the inbox titles it by, without its block marker (`#`, `>`, `-`).
      return questionParts(ask.prompt.question).title || "Question";
    case "approval":
      // The same words the inbox lists it by.
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
