import { isWhole, listedOver, type ListedAsk } from "../relay/listed-ask";
import type { ListedSnapshot } from "../relay/listed-snapshot";
import { browser } from "wxt/browser";
import { compareClosed, isNewer, isOpen } from "../base/ask-order";
import { ASK_PREFIX, askKey, readAsks } from "./storage-items";

/** Closed asks kept between snapshots; the relay's snapshot brings the fifty most recent anyway. */
export const KEEP_CLOSED = 100;

/**
 * The worker's copy of the live set, mirrored into storage one ask per key, so an event rewrites
 * one ask and the side panel hears only what changed. An ask is kept as the snapshot lists it (its
 * summary) or whole, as a change frame carries it; never a body older than the change listed.
 */
export class AskMirror {
  #asks = new Map<string, ListedAsk>();
  #loaded: Promise<void> | null = null;

  load(): Promise<void> {
    this.#loaded ??= readAsks().then((asks) => {
      this.#asks = asks;
    });
    return this.#loaded;
  }

  get asks(): ListedAsk[] {
    return [...this.#asks.values()];
  }

  get awaitingHuman(): number {
    return this.asks.filter((a) => a.status === "awaiting_human").length;
  }

  get(id: string): ListedAsk | undefined {
    return this.#asks.get(id);
  }

  has(id: string): boolean {
    return this.#asks.has(id);
  }

  /** Replaces everything with a snapshot; returns the asks that were not held before. */
  async reset(snapshot: ListedSnapshot): Promise<ListedAsk[]> {
    await this.load();
    const incoming = [...snapshot.open, ...snapshot.recent].map((a) => listedOver(this.#asks.get(a.id), a));
    const ids = new Set(incoming.map((a) => a.id));
    const fresh = incoming.filter((a) => !this.#asks.has(a.id));
    const stale = [...this.#asks.keys()].filter((id) => !ids.has(id));
    // Only what changed is written, so the side panel hears of nothing else.
    const changed = incoming.filter((a) => !sameListing(this.#asks.get(a.id), a));
    this.#asks = new Map(incoming.map((a) => [a.id, a]));
    if (stale.length) await browser.storage.local.remove(stale.map(askKey));
    if (changed.length) await browser.storage.local.set(Object.fromEntries(changed.map((a) => [askKey(a.id), a])));
    return fresh;
  }

  /** Applies one ask from an event; returns whether it was new. */
  async upsert(ask: ListedAsk): Promise<boolean> {
    await this.load();
    const current = this.#asks.get(ask.id);
    if (!isNewer(ask, current)) return false;
    this.#asks.set(ask.id, ask);
    await browser.storage.local.set({ [askKey(ask.id)]: ask });
    if (!isOpen(ask)) await this.#trimClosed();
    return !current;
  }

  /** Forgets every ask: the person connected somewhere else. */
  async clear(): Promise<void> {
    const all = await browser.storage.local.get(null);
    const keys = Object.keys(all).filter((k) => k.startsWith(ASK_PREFIX));
    if (keys.length) await browser.storage.local.remove(keys);
    this.#asks.clear();
    this.#loaded = Promise.resolve();
  }

  async #trimClosed() {
    const closed = this.asks.filter((a) => !isOpen(a)).sort(compareClosed);
    const drop = closed.slice(KEEP_CLOSED).map((a) => a.id);
    if (!drop.length) return;
    for (const id of drop) this.#asks.delete(id);
    await browser.storage.local.remove(drop.map(askKey));
  }
}

/** Whether a stored ask says the same as the one listed: the same body kept, or an equal summary. */
function sameListing(held: ListedAsk | undefined, listed: ListedAsk): boolean {
  if (held === listed) return true;
  return !!held && !isWhole(held) && !isWhole(listed) && JSON.stringify(held) === JSON.stringify(listed);
}
