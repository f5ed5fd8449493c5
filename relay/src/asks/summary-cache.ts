// Summaries of asks as last read, by id and the version they were made from: a snapshot reads only
// which asks it lists and their versions, and the bodies of those whose summary is not current here.
import type { Ask, AskSummary } from "@loopback/shared/generated/types";
import { summarize } from "@loopback/shared/ask-rules/summarize";
import { LRUCache } from "lru-cache";

/** Summaries kept at most: a few hundred bytes each, so ~10 MB at the most. */
export const MAX_SUMMARIES = 30_000;

export class SummaryCache {
  /** The least recently used is let go first. */
  #byId = new LRUCache<string, { version: number; summary: AskSummary }>({ max: MAX_SUMMARIES });

  /** The summary of `id` at `version`, when it is known; `waiting` is the caller's to set. */
  get(id: string, version: number): AskSummary | undefined {
    const held = this.#byId.get(id);
    return held?.version === version ? held.summary : undefined;
  }

  /** Forgets every summary: what they were made from may no longer be what the store holds at those versions. */
  clear(): void {
    this.#byId.clear();
  }

  remember(ask: Ask, version: number): AskSummary {
    const summary = summarize(ask);
    this.#byId.set(ask.id, { version, summary });
    return summary;
  }
}
