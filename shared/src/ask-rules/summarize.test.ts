import { expect, test } from "bun:test";
import { askTitle, questionBody, summarize } from "./summarize.ts";
import { aQuestion, aReview, anApproval, personReplies } from "../testing/sample-asks.ts";

test("a summary holds what a list row shows and none of the body", () => {
  const review = aReview();
  const summary = summarize(review);
  expect(summary).toMatchObject({ id: review.id, kind: "review", status: review.status, waiting: review.waiting, title: review.prompt.title, createdAt: review.createdAt, updatedAt: review.updatedAt });
  expect(summary).not.toHaveProperty("prompt");
  expect(summary).not.toHaveProperty("thread");
});

test("a question is titled by its first line without its block marker, cut at 200 characters", () => {
  expect(askTitle(aQuestion({ question: "\n## Ship it?\nThe tests pass." }))).toBe("Ship it?");
  expect(askTitle(aQuestion({ question: "x".repeat(250) }))).toBe(`${"x".repeat(200)}…`);
  expect(questionBody("x".repeat(250))).toBe("x".repeat(250));
});

test("an approval's title is what it is for, its markup escaped, the same words a summary lists", () => {
  const approval = anApproval({ input: { command: "rm *.log" } });
  expect(askTitle(approval)).toBe("Run rm \\*.log");
  expect(summarize(approval).title).toBe(askTitle(approval));
});

test("the last reply is named by its outcome, and an answer by what was said, cut at 40 characters", () => {
  const asked = aQuestion();
  const choice = asked.prompt.options[0]!.label;
  expect(summarize(personReplies(asked, { outcome: "answered", selected: [choice] })).lastReply).toEqual({ outcome: "answered", said: choice });
  expect(summarize(personReplies(asked, { outcome: "answered", selected: [], text: "y".repeat(50) })).lastReply).toEqual({ outcome: "answered", said: `${"y".repeat(40)}…` });
  expect(summarize(personReplies(asked, { outcome: "dismissed" })).lastReply).toEqual({ outcome: "dismissed" });
  expect(summarize(asked)).not.toHaveProperty("lastReply");
});
