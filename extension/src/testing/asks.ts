import type { Ask } from "@loopback/shared/generated/types";

let next = 0;

/** The same ask under an id no other test uses, so drafts kept per ask never leak between tests. */
export function fresh<A extends Ask>(ask: A, changes: Partial<A> = {}): A {
  return { ...ask, id: `${ask.id}-${++next}`, ...changes };
}

export { DIFF_OF_TWO_FILES, aBriefing, aQuestion, aReview, agentAnswers, anApproval, personReplies, personResponds } from "@loopback/shared/testing/sample-asks";
