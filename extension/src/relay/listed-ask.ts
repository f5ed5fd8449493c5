import type { Ask, AskSummary } from "@loopback/shared/generated/types";

/**
 * An ask as the inbox lists it: whole once its body was read (or came on a change frame), else the
 * summary a snapshot lists it by. A row needs no more than the summary; the ask pane needs it whole.
 */
export type ListedAsk = Ask | AskSummary;

/** Whether the ask's body is here: a whole ask has a thread, a summary never does. */
export const isWhole = (ask: ListedAsk): ask is Ask => "thread" in ask;

/** What to keep of an ask a snapshot lists: the body held at the very change listed, else what the snapshot says. */
export const listedOver = (held: ListedAsk | undefined, listed: ListedAsk): ListedAsk =>
  held && isWhole(held) && !isWhole(listed) && held.updatedAt === listed.updatedAt ? held : listed;
