import type { ReviewInput } from "@loopback/shared/generated/types";
import type { BlockingTool } from "../tool.ts";
import { PROJECT_WORDS, WAIT_WORDS, ASK_AGAIN_WORDS } from "./words.ts";

export const requestReview: BlockingTool = {
  kind: "blocking",
  name: "request_review",
  title: "Put work in front of the person for review",
  description: [
    "Show the person something you made — code, a diff, copy, a plan, a screenshot — and wait for their verdict. Use it before anything hard to undo (a migration, a release, a large refactor, a message sent on their behalf) and whenever they asked to see work first.",
    "`content` is a list of blocks shown in order: `{type:\"markdown\", text}`, `{type:\"code\", code, language, filename}`, `{type:\"diff\", diff, filename}` (a unified diff as `git diff` prints it), `{type:\"image\", uploadId, caption}` (upload the image first: `get_upload_ticket`, then run its `command`). Say in `summary` what changed or what to look at. Everything together may be at most 256 KiB: show the part that matters, or split it into several reviews.",
    WAIT_WORDS,
    ASK_AGAIN_WORDS,
    "The reply is one of: `approved` (go ahead; `note` may add something); `changes_requested` (make the changes, then send a new review with `revises` set to this review's `askId`); `follow_up` (they asked you something in `question`: answer with `answer_follow_up`); `dismissed` (they declined to review it: do not proceed as if approved).",
    "`approved` and `changes_requested` may carry `comments`, each on one block of your `content` (`block`, its index from 0) and, on a code block, one `line` (from 1), or on a diff, one `file`, `side` (`new` for an added or unchanged line, `old` for a removed one) and that side's `line`. `feedback` is what they said overall, and may be absent when the comments say it all. On `changes_requested`, address every comment and the feedback, then call `request_review` again with `revises` set to this review's `askId`, showing the same files as they are now: the person compares the two rounds and checks each comment was dealt with. Comments on an approval are worth heeding too, but you may go ahead.",
    PROJECT_WORDS,
  ].join("\n\n"),
  start: ({ asks, caller, client, call }, args) => asks.open(caller, { kind: "review", input: args as ReviewInput }, client, call),
};
