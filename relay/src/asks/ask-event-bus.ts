// Changes to asks, as the contract's `AskEvent`, tagged with the space they belong to, in the order
// the ask feed (asks/ask-feed.ts) shows them. Adapters decide who hears them; the event socket
// delivers each only to that space's sockets.
import type { AskEvent } from "@loopback/shared/generated/types";

/** Hears every change published, with the version of the ask it shows. */
export type AskListener = (spaceId: string, event: AskEvent, version: number) => void;

export class AskEventBus {
  #listeners = new Set<AskListener>();

  #resyncs = new Set<() => void>();

  /** Called when what was published may have missed changes, and whoever shows asks should read them all again. */
  onResync(listener: () => void): () => void {
    this.#resyncs.add(listener);
    return () => this.#resyncs.delete(listener);
  }

  /** Changes may have been missed (the database or the replicas' channel was away): everything shown is read again. */
  resync(): void {
    for (const listener of this.#resyncs) listener();
  }

  listen(listener: AskListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publish(spaceId: string, event: AskEvent, version: number): void {
    for (const listener of this.#listeners) listener(spaceId, event, version);
  }
}
