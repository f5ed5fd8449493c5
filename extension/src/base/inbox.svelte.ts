import type { Ask } from "@loopback/shared/generated/types";
import type { ListedSnapshot } from "../relay/listed-snapshot";
import { SvelteMap } from "svelte/reactivity";
import { compareClosed, compareOpen, isNewer, isOpen } from "./ask-order";
import { isWhole, listedOver, type ListedAsk } from "../relay/listed-ask";

/**
 * The asks a person sees: the live set (a snapshot, then every event applied on top) and older
 * history paged in on demand. Whoever owns the connection feeds it; components only read. The live
 * set lists an ask by its summary until its body is read (`get` gives only whole asks; `entry` either).
 */
export class Inbox {
  #live = new SvelteMap<string, ListedAsk>();
  #history = new SvelteMap<string, Ask>();
  /** Whether a snapshot has arrived at least once, so an empty list means "nothing" and not "loading". */
  loaded = $state(false);
  project = $state<string | null>(null);
  historyCursor = $state<string | undefined>(undefined);
  historyDone = $state(false);

  open = $derived([...this.#live.values()].filter(isOpen).sort(compareOpen));
  closed = $derived.by(() => {
    const byId = new Map<string, ListedAsk>();
    for (const ask of this.#history.values()) byId.set(ask.id, ask);
    for (const ask of this.#live.values()) if (!isOpen(ask)) byId.set(ask.id, ask);
    return [...byId.values()].filter((ask) => !isOpen(ask)).sort(compareClosed);
  });
  awaitingHuman = $derived(this.open.filter((ask) => ask.status === "awaiting_human").length);
  projects = $derived(
    [...new Set([...this.open, ...this.closed].map((ask) => ask.project ?? ""))].filter(Boolean).sort(),
  );
  visibleOpen = $derived(this.project ? this.open.filter((a) => a.project === this.project) : this.open);
  visibleClosed = $derived(this.project ? this.closed.filter((a) => a.project === this.project) : this.closed);
  /** Every ask in the order the list shows it, for moving with j/k. */
  ordered = $derived([...this.visibleOpen, ...this.visibleClosed]);

  /** The ask whole, when its body is here. */
  get(id: string): Ask | undefined {
    const ask = this.entry(id);
    return ask && isWhole(ask) ? ask : undefined;
  }

  /** The ask as listed: whole, or its summary while its body is not read. */
  entry(id: string): ListedAsk | undefined {
    return this.#live.get(id) ?? this.#history.get(id);
  }

  /**
   * Starts over from a snapshot: whatever it lacks is gone from the live set, and a body held at
   * the change the snapshot lists is kept.
   */
  reset(snapshot: ListedSnapshot): void {
    const incoming = new Map([...snapshot.open, ...snapshot.recent].map((ask) => [ask.id, ask]));
    for (const id of [...this.#live.keys()]) if (!incoming.has(id)) this.#live.delete(id);
    for (const [id, ask] of incoming) {
      const held = this.#live.get(id);
      if (listedOver(held, ask) !== held) this.#live.set(id, ask);
    }
    this.loaded = true;
  }

  /** Applies an ask as an event or a reply's response carries it; older copies are ignored. */
  upsert(ask: ListedAsk): void {
    if (!isNewer(ask, this.#live.get(ask.id) ?? this.#history.get(ask.id))) return;
    this.#live.set(ask.id, ask);
    this.#history.delete(ask.id);
  }

  remove(id: string): void {
    this.#live.delete(id);
  }

  /** Keeps an ask fetched on its own, such as one a deep link named. */
  remember(ask: Ask): void {
    if (this.#live.has(ask.id)) this.upsert(ask);
    else this.#history.set(ask.id, ask);
  }

  /** Adds a page of history; the live set wins for any ask in both. */
  addHistory(items: Ask[], nextBefore: string | undefined): void {
    for (const ask of items) if (!this.#live.has(ask.id)) this.#history.set(ask.id, ask);
    this.historyCursor = nextBefore;
    this.historyDone = !nextBefore;
  }

  /** Where to page history from: the oldest closed ask held, when no cursor was given yet. */
  get historyBefore(): string | undefined {
    if (this.historyCursor) return this.historyCursor;
    const oldest = this.closed.at(-1);
    return oldest ? (oldest.closedAt ?? oldest.updatedAt) : undefined;
  }
}
