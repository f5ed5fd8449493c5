// The rules of an ask, shared by the relay and the inbox: pure functions of an ask and what is sent to
// it. Nothing here reads a clock or a store; the time of a change is passed in.
export * from "./apply-reply.ts";
export * from "./approval-title.ts";
export * from "./briefing-answer.ts";
export * from "./briefing-points.ts";
export * from "./check-comments.ts";
export * from "./check-reply.ts";
export * from "./comment-anchor.ts";
export * from "./diff-lines.ts";
export * from "./follow-up-answer.ts";
export * from "./has-words.ts";
export * from "./latest-reply.ts";
export * from "./number-briefing.ts";
export * from "./open-ask.ts";
export * from "./permission-decision.ts";
export * from "./size.ts";
export * from "./summarize.ts";
export * from "./touches.ts";
export * from "./whose-move.ts";
