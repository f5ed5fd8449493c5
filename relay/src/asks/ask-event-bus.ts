// Changes to asks, as the contract's `AskEvent`, tagged with the space they belong to. Adapters
// decide who hears them; the event socket delivers each only to that space's sockets. Every event
// names the ask's version, and the bus remembers the newest it published of each ask: an older one is
// dropped, and a `waiting` flip is shown at the version already shown (`republish`), so an ask's
// frames go out in the order it changed, whether a change was made here or heard from another
// replica (whose notice may arrive after this replica read, or made, a later version).
import type { Ask, AskEvent } from "@loopback/shared/generated/types";
import { askAsOf, stateOf, type AskState } from "../storage/ask-as-of.ts";

/** Asks whose newest published version is remembered: the most recently published. */
const REMEMBERED = 100_000;

/** Hears every change published, with the version of the ask it shows. */
export type AskListener = (spaceId: string, event: AskEvent, version: number) => void;

export class AskEventBus {
  #listeners = new Set<AskListener>();
  /** The newest version published of each ask, the most recently published last. */
  #shown = new Map<string, AskState>();

  #resyncs = new Set<() => void>();

  /** Called when what was published may have missed changes, and whoever shows asks should read them all again. */
  onResync(listener: () => void): () => void {
    this.#resyncs.add(listener);
    return () => this.#resyncs.delete(listener);
  }

  /**
   * Changes may have been missed (the database or the replicas' channel was away): everything shown
   * is read again. What was published is forgotten with it: a version remembered from before would
   * have a `waiting` flip shown as that older state (an ask closed meanwhile shown open again).
   */
  resync(): void {
    this.#shown.clear();
    for (const listener of this.#resyncs) listener();
  }

  listen(listener: AskListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Publishes `ask` at `version`, unless a later version of it was published already. */
  publish(spaceId: string, type: AskEvent["type"], ask: Ask, version: number): void {
    if (version < (this.#shown.get(ask.id)?.version ?? -1)) return;
    this.#shown.delete(ask.id);
    this.#shown.set(ask.id, stateOf(ask, version));
    // Bounded: an ask not published for this long has no notice of an older version still coming.
    if (this.#shown.size > REMEMBERED) this.#shown.delete(this.#shown.keys().next().value!);
    const event: AskEvent = { type, ask };
    for (const listener of this.#listeners) listener(spaceId, event, version);
  }

  /**
   * Publishes the version a change here was decided on, when this bus has not shown it (nor a later
   * one): its notice, made elsewhere, may still be coming, and would be dropped once the change made
   * here is shown. An inbox that had it already keeps its copy (the same version, no newer).
   */
  catchUp(spaceId: string, ask: Ask, version: number): void {
    if ((this.#shown.get(ask.id)?.version ?? -1) < version) this.publish(spaceId, version === 0 ? "ask.opened" : "ask.updated", ask, version);
  }

  /**
   * Publishes an ask again (its `waiting` changed), read at `version` now: as the newest version
   * published shows it, when that is older (the notices of the versions between are still coming).
   */
  republish(spaceId: string, ask: Ask, version: number): void {
    const shown = this.#shown.get(ask.id);
    if (shown && shown.version < version) this.publish(spaceId, "ask.updated", askAsOf(ask, shown), shown.version);
    else this.publish(spaceId, "ask.updated", ask, version);
  }
}
