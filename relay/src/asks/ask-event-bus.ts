// Changes to asks, as the contract's `AskEvent`, tagged with the space they belong to. Adapters
// decide who hears them; the event socket delivers each only to that space's sockets. Every event
// names the ask's version: one older than an event already published of that ask is dropped, so an
// ask's frames go out in the order it changed, whether a change was made here or heard from another
// replica (whose notice may arrive after this replica read, or made, a later one).
import type { Ask, AskEvent } from "@loopback/shared/generated/types";

export type AskListener = (spaceId: string, event: AskEvent) => void;

export class AskEventBus {
  #listeners = new Set<AskListener>();
  /** The newest version published of each ask still open. */
  #published = new Map<string, number>();

  listen(listener: AskListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publish(spaceId: string, type: AskEvent["type"], ask: Ask, version: number): void {
    const newest = this.#published.get(ask.id) ?? -1;
    if (version < newest) return;
    // A closed ask changes no more: what is left to publish of it is its `waiting`, at this version.
    if (ask.status === "closed") this.#published.delete(ask.id);
    else this.#published.set(ask.id, version);
    const event: AskEvent = { type, ask };
    for (const listener of this.#listeners) listener(spaceId, event);
  }
}
