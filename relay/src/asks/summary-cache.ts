// Summaries of asks as last read, by id and the version they were made from: a snapshot reads only
// which asks it lists and their versions, and the bodies of those whose summary is not current here.
import type { Ask, AskSummary } from "@loopback/shared/generated/types";
import { summarize } from "@loopback/shared/ask-rules/summarize";

/** Summaries kept at most: a few hundred bytes each, so ~10 MB at the most. */
export const MAX_SUMMARIES = 30_000;

export class SummaryCache {
  // A Map keeps insertion order: re-setting an entry moves it last, so the first is the least recently used.
  #byId = new Map<string, { version: number; summary: AskSummary }>();

  /** The summary of `id` at `version`, when it is known; `waiting` is the caller's to set. */
  get(id: string, version: number): AskSummary | undefined {
    const held = this.#byId.get(id);
    if (!held || held.version !== version) return undefined;
    this.#byId.delete(id);
    this.#byId.set(id, held);
    return held.summary;
  }

  /** Forgets every summary: what they were made from may no longer be what the store holds at those versions. */
  clear(): void {
    this.#byId.clear();
  }

  remember(ask: Ask, version: number): AskSummary {
    const summary = summarize(ask);
    this.#byId.delete(ask.id);
    this.#byId.set(ask.id, { version, summary });
    if (this.#byId.size > MAX_SUMMARIES) this.#byId.delete(this.#byId.keys().next().value!);
    return summary;
  }
}
