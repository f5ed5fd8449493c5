// Summaries of asks as last read, by id and the version they were made from: a snapshot reads only
// which asks it lists and their versions, and the bodies of those whose summary is not current here.
import type { Ask, AskSummary } from "@loopback/shared/generated/types";
import { summarize } from "@loopback/shared/ask-rules/summarize";
import { LRUCache } from "lru-cache";
import { onceAfterThisTurn } from "./after-this-turn.ts";

/** Summaries kept at most: a few hundred bytes each, so ~10 MB at the most. */
export const MAX_SUMMARIES = 30_000;

export class SummaryCache {
  /** The least recently used is let go first. */
  #byId = new LRUCache<string, { version: number; summary: AskSummary }>({ max: MAX_SUMMARIES });
  /** Asks to summarize once this turn of the event loop is over (`rememberSoon`). */
  #soon: { ask: Ask; version: number }[] = [];
  #settleSoon = onceAfterThisTurn(() => this.#settle());

  /** The summary of `id` at `version`, when it is known; `waiting` is the caller's to set. */
  get(id: string, version: number): AskSummary | undefined {
    this.#settle();
    const held = this.#byId.get(id);
    return held?.version === version ? held.summary : undefined;
  }

  /** Forgets every summary: what they were made from may no longer be what the store holds at those versions. */
  clear(): void {
    this.#soon.length = 0;
    this.#byId.clear();
  }

  /**
   * Remembers `ask` at `version` after this turn: a change is shown first, and summarized off its way
   * (~0.05 ms after a pause). A read of the cache before then summarizes it at once.
   */
  rememberSoon(ask: Ask, version: number): void {
    this.#soon.push({ ask, version });
    this.#settleSoon();
  }

  #settle(): void {
    for (const { ask, version } of this.#soon.splice(0)) this.remember(ask, version);
  }

  remember(ask: Ask, version: number): AskSummary {
    const summary = summarize(ask);
    this.#byId.set(ask.id, { version, summary });
    return summary;
  }
}
