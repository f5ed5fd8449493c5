import { expect, test } from "bun:test";
import { latestReply, replyCount } from "./latest-reply.ts";
import { agentAnswersFollowUp, aQuestion, personReplies } from "../testing/sample-asks.ts";

test("an ask nobody has replied to has no latest reply", () => expect(latestReply(aQuestion())).toBeUndefined());

test("the latest reply is the person's last turn, past any agent answer after it", () => {
  const asked = personReplies(aQuestion(), { outcome: "follow_up", question: "Which Friday?" }, 1);
  const answered = agentAnswersFollowUp(asked, "The 13th.", 2);
  expect(latestReply(answered)?.reply).toEqual({ outcome: "follow_up", question: "Which Friday?" });
  const replied = personReplies(answered, { outcome: "answered", selected: ["No"] }, 3);
  expect(latestReply(replied)?.reply).toEqual({ outcome: "answered", selected: ["No"] });
});

test("the person's turns are counted, not the agent's", () => {
  expect(replyCount(aQuestion())).toBe(0);
  const asked = personReplies(aQuestion(), { outcome: "follow_up", question: "Which Friday?" }, 1);
  const answered = agentAnswersFollowUp(asked, "The 13th.", 2);
  expect(replyCount(answered)).toBe(1);
  expect(replyCount(personReplies(answered, { outcome: "answered", selected: ["No"] }, 3))).toBe(2);
});
