// An ask as one of its versions left it. Every version keeps the opening and a prefix of the thread,
// so the ask read now, cut to that version's turns and given its status and times, is that version.
import type { Ask } from "@loopback/shared/generated/types";

/** What a version of an ask was, beyond its opening and thread. */
export interface AskState {
  version: number;
  turns: number;
  status: Ask["status"];
  updatedAt: string;
  closedAt?: string;
}

export function stateOf(ask: Ask, version: number): AskState {
  return { version, turns: ask.thread.length, status: ask.status, updatedAt: ask.updatedAt, ...(ask.closedAt ? { closedAt: ask.closedAt } : {}) };
}

/** `ask` as `state` left it; `ask` itself when it is not a later version of the same (it has fewer turns). */
export function askAsOf(ask: Ask, state: Omit<AskState, "version">): Ask {
  if (ask.thread.length < state.turns) return ask;
  const { closedAt: _closedAt, ...open } = ask;
  return { ...open, thread: ask.thread.slice(0, state.turns), status: state.status, updatedAt: state.updatedAt, ...(state.closedAt ? { closedAt: state.closedAt } : {}) } as Ask;
}
