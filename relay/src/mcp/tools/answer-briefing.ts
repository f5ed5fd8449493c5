import type { BriefingAnswerInput } from "@loopback/shared/generated/types";
import type { BlockingTool } from "../tool.ts";
import { WAIT_WORDS, RESUME_WORDS } from "./words.ts";

export const answerBriefing: BlockingTool = {
  kind: "blocking",
  name: "answer_briefing",
  title: "Answer the person on a briefing's points",
  description: [
    "Answer the person's replies on a briefing you sent, after `send_briefing` (or an earlier `answer_briefing`) returned `responded` with points left open.",
    "Give one entry in `answers` for every point they wrote on without resolving it — name it by its id (`3`, `3.1`) — and for any other open point you have more to say on. Each `answer` is markdown; add `content` blocks to show something new; add `points` to break the point into sub-points (numbered beneath it, such as 3.1, 3.2; at most three levels deep, so 3.1.2 takes no sub-points).",
    WAIT_WORDS,
    RESUME_WORDS,
    "The reply is the person's next `responded` (repeat until every point is resolved, which closes the briefing) or `dismissed`.",
  ].join("\n\n"),
  start: async ({ asks, caller }, args) => {
    const { ask, release } = await asks.answerBriefing(caller, args as BriefingAnswerInput, { followed: true });
    return { askId: ask.id, release };
  },
};
