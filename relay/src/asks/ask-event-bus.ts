// Changes to asks, as the contract's `AskEvent`, tagged with the space they belong to. Adapters
// decide who hears them; the event socket delivers each only to that space's sockets.
import type { Ask, AskEvent } from "@loopback/shared/generated/types";

export type AskListener = (spaceId: string, event: AskEvent) => void;

export class AskEventBus {
  #listeners = new Set<AskListener>();

  listen(listener: AskListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publish(spaceId: string, type: AskEvent["type"], ask: Ask): void {
    const event: AskEvent = { type, ask };
    for (const listener of this.#listeners) listener(spaceId, event);
  }
}
