import { untrack } from "svelte";
import { SvelteMap } from "svelte/reactivity";
import type { RelayClient } from "../relay/relay-client";
import { describeError } from "../relay/relay-error";
import type { Inbox } from "./inbox.svelte";
import type { ListedAsk } from "../relay/listed-ask";

/** Bodies read at once: the opened ask's never waits behind more than a couple of others. */
const READS_AT_ONCE = 3;
/** How long after a failed read it is tried again, while still wanted. */
export const RETRY_MS = 2_000;
/** How many asks at the top of the list have their bodies read before they are opened. */
export const READ_AHEAD = 3;

/**
 * The asks whose bodies are wanted now, most wanted first: the one open, the one selected and its
 * neighbours in the walk (where j/k go next), and the top of the list.
 */
export function wantedBodies(openId: string | null, selectedId: string | null, walk: ListedAsk[], ordered: ListedAsk[]): string[] {
  const at = walk.findIndex((a) => a.id === selectedId);
  const near = at === -1 ? [] : [walk[at + 1]?.id, walk[at - 1]?.id];
  const ids = [openId, selectedId, ...near, ...ordered.slice(0, READ_AHEAD).map((a) => a.id)];
  return [...new Set(ids.filter((id): id is string => !!id))];
}

/**
 * Reads the bodies of asks the inbox lists by summary (or does not hold at all, as a deep link
 * names), a few at a time and each once, into the inbox. A read that fails is said (`failures`)
 * and tried again while the ask is still wanted.
 */
export class AskBodies {
  /** Why an ask's body could not be read, by id, until it is. */
  readonly failures = new SvelteMap<string, string>();
  #inbox: Inbox;
  #client: RelayClient | null = null;
  #wanted: string[] = [];
  #reading = new Map<string, AbortController>();
  #retryAt = new Map<string, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(inbox: Inbox) {
    this.#inbox = inbox;
  }

  /** Sets what is wanted now (see `wantedBodies`), and reads what of it is missing. */
  want(client: RelayClient | null, ids: string[]): void {
    untrack(() => {
      if (client !== this.#client) this.stop();
      this.#client = client;
      this.#wanted = ids;
      this.#pump();
    });
  }

  /** Reads nothing more, and forgets every failure: the relay or token changed, or the inbox closed. */
  stop(): void {
    for (const controller of this.#reading.values()) controller.abort();
    this.#reading.clear();
    this.#retryAt.clear();
    this.#wanted = [];
    this.failures.clear();
    clearTimeout(this.#timer);
  }

  #pump() {
    const client = this.#client;
    if (!client) return;
    const now = Date.now();
    for (const id of this.#wanted) {
      if (this.#reading.size >= READS_AT_ONCE) break;
      if (this.#reading.has(id) || this.#inbox.get(id) || (this.#retryAt.get(id) ?? 0) > now) continue;
      this.#read(client, id);
    }
    this.#scheduleRetry(now);
  }

  #read(client: RelayClient, id: string) {
    const controller = new AbortController();
    this.#reading.set(id, controller);
    client
      .ask(id, controller.signal)
      .then(
        (ask) => {
          this.#retryAt.delete(id);
          this.failures.delete(id);
          this.#inbox.remember(ask);
        },
        (e) => {
          if (controller.signal.aborted) return;
          this.failures.set(id, describeError(e));
          this.#retryAt.set(id, Date.now() + RETRY_MS);
        },
      )
      .finally(() => {
        if (this.#reading.get(id) !== controller) return;
        this.#reading.delete(id);
        this.#pump();
      });
  }

  /** Wakes when the first wanted ask's retry is due. */
  #scheduleRetry(now: number) {
    clearTimeout(this.#timer);
    const due = this.#wanted.flatMap((id) => this.#retryAt.get(id) ?? []).filter((at) => at > now);
    if (due.length) this.#timer = setTimeout(() => this.#pump(), Math.min(...due) - now);
  }
}
