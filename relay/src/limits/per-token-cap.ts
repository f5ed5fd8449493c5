// The one shape of every per-token cap: a token may hold at most so many of a thing at once, and one
// more is refused with that thing's 429 Problem, saying the cap and the variable that sets it.
import { problem, type ProblemCode } from "@loopback/shared/problems";

export interface Cap {
  /** Its Problem in the table, a 429. */
  code: ProblemCode;
  /** How many a token may hold at once. */
  max: number;
  /** The environment variable that sets `max`. */
  env: string;
}

/** Throws the cap's Problem when a token already holding `held` may not take one more. */
export function assertUnderCap(cap: Cap, held: number): void {
  if (held >= cap.max) refuseOverCap(cap);
}

/** Throws the cap's Problem: the store refused one more (counted in the same step as the insert). */
export function refuseOverCap(cap: Cap): never {
  throw problem(cap.code, `A token may hold ${cap.max} at once (${cap.env}).`);
}
