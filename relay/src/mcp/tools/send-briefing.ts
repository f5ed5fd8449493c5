import type { BriefingInput } from "@loopback/shared/generated/types";
import type { BlockingTool } from "../tool.ts";
import { PROJECT_WORDS, WAIT_WORDS, ASK_AGAIN_WORDS } from "./words.ts";

export const sendBriefing: BlockingTool = {
  kind: "blocking",
  name: "send_briefing",
  title: "Brief the person, point by point",
  description: [
    "Explain something as numbered points the person can reply on one at a time: findings of an investigation, options with their trade-offs, the steps of a plan, a list of changes. Use it instead of a long message when you want their word on each point.",
    "Group `points` in `sections` (each with an optional `title`). Each point has a one-line `title` (at most 200 characters, shown folded), an optional `detail` (markdown, shown when opened) and optional `content` blocks (code, diff, image, markdown). Points are numbered for you straight through every section — 1, 2, 3… — at most fifty; replies name them by that number.",
    WAIT_WORDS,
    ASK_AGAIN_WORDS,
    "The reply is `responded`, with `points`: for each point the person wrote on, their `text`, and `resolved: true` when they are done with it (resolving a point resolves everything beneath it). If every point is resolved, the briefing is closed: act on what they said. Otherwise answer with `answer_briefing`: every point they wrote on without resolving it needs an answer, and you may break a point into sub-points (3.1, 3.2…, at most three levels deep). Or `dismissed`: they set the briefing aside.",
    PROJECT_WORDS,
  ].join("\n\n"),
  start: ({ asks, caller, client, call }, args) => asks.open(caller, { kind: "briefing", input: args as BriefingInput }, client, call),
};
