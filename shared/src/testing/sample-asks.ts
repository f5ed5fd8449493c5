// Asks for the tests to work on, built and moved along by the rules themselves, so every one is an ask
// the rules could have made.
import type { ApprovalAsk, ApprovalInput, BriefingAnswerInput, BriefingAsk, BriefingInput, PointAnswer, PointReply, QuestionAsk, QuestionInput, Reply, ReviewAsk, ReviewInput } from "../generated/types.ts";
import { LoopbackProblem } from "../problems.ts";
import { applyReply } from "../ask-rules/apply-reply.ts";
import { applyBriefingAnswer } from "../ask-rules/briefing-answer.ts";
import { applyFollowUpAnswer } from "../ask-rules/follow-up-answer.ts";
import { openAsk } from "../ask-rules/open-ask.ts";

export const at = (minute: number) => `2025-01-01T09:${String(minute).padStart(2, "0")}:00.000Z`;

export const codeOf = (refusal: LoopbackProblem | null) => refusal?.code ?? null;

/** The code of the problem `change` throws, or null when it throws nothing. */
export function codeThrownBy(change: () => unknown) {
  try {
    change();
    return null;
  } catch (thrown) {
    if (thrown instanceof LoopbackProblem) return thrown.code;
    throw thrown;
  }
}

export const aQuestion = (input: Partial<QuestionInput> = {}): QuestionAsk =>
  openAsk("question", { question: "Ship on Friday?", options: [{ label: "Yes" }, { label: "No" }, { label: "Later" }], project: "loopback", ...input }, { id: "q1", at: at(0) });

export const aReview = (input: Partial<ReviewInput> = {}): ReviewAsk =>
  openAsk("review", { title: "Release notes", content: [{ type: "markdown", text: "# 1.2" }], project: "loopback", ...input }, { id: "r1", at: at(0) });

/** Points 1 to 3 under "Findings", point 4 under "Next". */
export const aBriefing = (input: Partial<BriefingInput> = {}): BriefingAsk =>
  openAsk(
    "briefing",
    {
      title: "Why the list is slow",
      sections: [
        { title: "Findings", points: [{ title: "The cache is cold" }, { title: "An index is missing" }, { title: "The list queries once per row" }] },
        { title: "Next", points: [{ title: "Add the index" }] },
      ],
      project: "loopback",
      ...input,
    },
    { id: "b1", at: at(0) },
  );

/** Claude Code asking to run a shell command, as its permission prompt tool is called. */
export const anApproval = (input: Partial<ApprovalInput> = {}): ApprovalAsk =>
  openAsk("approval", { tool_name: "Bash", input: { command: "rm -rf build", description: "Remove the build output" }, tool_use_id: "toolu_1", ...input }, { id: "p1", at: at(0) });

export const personReplies = <A extends QuestionAsk | ReviewAsk | BriefingAsk | ApprovalAsk>(ask: A, reply: Reply, minute = 1): A => applyReply(ask, reply, undefined, at(minute));

export const personResponds = (ask: BriefingAsk, points: PointReply[], minute = 1): BriefingAsk => personReplies(ask, { outcome: "responded", points }, minute);

export const agentAnswers = (ask: BriefingAsk, answers: PointAnswer[], minute = 2): BriefingAsk =>
  applyBriefingAnswer(ask, { askId: ask.id, answers } satisfies BriefingAnswerInput, at(minute));

export const agentAnswersFollowUp = <A extends QuestionAsk | ReviewAsk>(ask: A, answer = "Because the freeze starts Monday.", minute = 2): A =>
  applyFollowUpAnswer(ask, { askId: ask.id, answer }, at(minute));

// Two files: a.ts changes lines 2-3 (old) into 2-4 (new); b.ts is deleted.
export const DIFF_OF_TWO_FILES = [
  "diff --git a/src/a.ts b/src/a.ts",
  "--- a/src/a.ts",
  "+++ b/src/a.ts",
  "@@ -1,3 +1,4 @@",
  " const a = 1;",
  "-const b = 2;",
  "+const b = 3;",
  "+const c = 4;",
  " export { a };",
  "diff --git a/old.txt b/old.txt",
  "deleted file mode 100644",
  "--- a/old.txt",
  "+++ /dev/null",
  "@@ -1,2 +0,0 @@",
  "-one",
  "-two",
  "",
].join("\n");

/** A review of a markdown block, a code block, the diff of two files, a diff of hunks only and an image. */
export const aReviewOfEveryBlock = (): ReviewAsk =>
  aReview({
    content: [
      { type: "markdown", text: "The plan." },
      { type: "code", code: "select 1;\nselect 2;\nselect 3;", language: "sql", filename: "q.sql" },
      { type: "diff", diff: DIFF_OF_TWO_FILES },
      { type: "diff", diff: "@@ -1 +1 @@\n-x\n+y\n", filename: "bare.txt" },
      { type: "image", uploadId: "upl_1" },
    ],
  });
