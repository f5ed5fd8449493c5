import type { FollowUpInput } from "@loopback/shared/generated/types";
import type { BlockingTool } from "../tool.ts";
import { WAIT_WORDS, RESUME_WORDS } from "./words.ts";

export const answerFollowUp: BlockingTool = {
  kind: "blocking",
  name: "answer_follow_up",
  title: "Answer a question the person asked back",
  description: [
    "Answer the question the person asked back (a `follow_up` reply) on a question or review of yours, then wait for their decision. `answer` is markdown; add `content` blocks (code, diff, image) when showing is clearer than telling.",
    WAIT_WORDS,
    RESUME_WORDS,
    "The reply is what the original ask takes: for a question `answered`, `follow_up` again or `dismissed`; for a review `approved`, `changes_requested`, `follow_up` again or `dismissed`.",
  ].join("\n\n"),
  start: async ({ asks, caller }, args) => {
    const { ask, release } = await asks.answerFollowUp(caller, args as FollowUpInput, { followed: true });
    return { askId: ask.id, release };
  },
};
