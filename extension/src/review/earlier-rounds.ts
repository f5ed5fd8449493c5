import type { Ask, ReviewAsk } from "@loopback/shared/generated/types";

/** The rounds before a review, newest first, as far back as they can be read. */
export async function earlierRounds(review: ReviewAsk, read: (id: string) => Promise<Ask | undefined>, limit = 20): Promise<ReviewAsk[]> {
  const rounds: ReviewAsk[] = [];
  let id = review.revises;
  while (id && rounds.length < limit) {
    const ask = await read(id).catch(() => undefined);
    if (ask?.kind !== "review" || rounds.some((r) => r.id === ask.id)) break;
    rounds.push(ask);
    id = ask.revises;
  }
  return rounds;
}

/**
 * The round the person last saw: the newest earlier round they gave a verdict or asked back on.
 * Rounds sent while they were away are skipped over, so the changes shown are all they missed.
 */
export function lastSeen(rounds: ReviewAsk[]): ReviewAsk | undefined {
  return rounds.find((r) => r.thread.some((e) => e.author === "human" && e.reply.outcome !== "dismissed")) ?? rounds[0];
}
