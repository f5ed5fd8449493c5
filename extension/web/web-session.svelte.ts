import type { Ask, Whoami } from "@loopback/shared/generated/types";
import { Inbox } from "../src/base/inbox.svelte";
import type { Session } from "../src/base/session";
import { EventStream, type StreamState } from "../src/relay/event-stream";
import { RelayClient } from "../src/relay/relay-client";
import { RelayError, describeError } from "../src/relay/relay-error";
import { notAPersonToken } from "../src/relay/person-token";
import type { RevisionGap } from "../src/relay/revision";
import { PushSettings } from "./push-settings.svelte";
import { forgetTokenForWorker, keepTokenForWorker } from "./worker-token";

const TOKEN_KEY = "loopback.token";
const RELOADED_KEY = "loopback.reloadedAt";
/** One automatic reload per this long, so a relay that keeps refusing cannot loop the page. */
const RELOAD_GUARD_MS = 30_000;

/**
 * The web inbox's session: same origin as the relay, the person's token in this origin's
 * localStorage, and the event socket held by the page itself.
 */
export class WebSession implements Session {
  readonly surface = "web" as const;
  readonly inbox = new Inbox();
  client = $state<RelayClient | null>(null);
  stream = $state<StreamState | null>(null);
  revision = $state<RevisionGap>("same");
  who = $state<Whoami | null>(null);
  signInError = $state<string | null>(null);
  showAccount = $state(false);
  readonly push = new PushSettings(() => this.client);
  #run: { controller: AbortController; stream: EventStream } | null = null;

  constructor(readonly base = location.origin) {}

  get signedIn(): boolean {
    return this.client !== null;
  }

  /** Starts with the stored token, if there is one. */
  resume(): void {
    const token = localStorage.getItem(TOKEN_KEY);
    if (token) this.#start(token);
  }

  async signIn(token: string): Promise<boolean> {
    this.signInError = null;
    const client = this.#client(token.trim());
    try {
      const who = await client.whoami();
      const refused = await notAPersonToken(client);
      if (refused) {
        this.signInError = refused;
        return false;
      }
      this.who = who;
    } catch (e) {
      this.signInError =
        e instanceof RelayError && e.kind === "unauthorized" ? "The relay does not know this token." : describeError(e);
      return false;
    }
    localStorage.setItem(TOKEN_KEY, token.trim());
    this.#start(token.trim(), client);
    return true;
  }

  signOut(): void {
    // This device stops hearing about the space before the token goes.
    void this.push.forgetThisDevice().finally(() => forgetTokenForWorker().catch(() => {}));
    this.#run?.controller.abort();
    this.#run = null;
    localStorage.removeItem(TOKEN_KEY);
    this.client = null;
    this.stream = null;
    this.who = null;
    this.showAccount = false;
    this.inbox.reset({ open: [], recent: [] });
    this.inbox.loaded = false;
  }

  applied(ask: Ask): void {
    this.inbox.upsert(ask);
  }

  reconnect(): void {
    this.#run?.stream.nudge();
  }

  openSettings(): void {
    this.showAccount = !this.showAccount;
  }

  /** Follows the network and the page's visibility until the signal aborts. */
  listen(signal: AbortSignal): void {
    window.addEventListener("online", () => this.reconnect(), { signal });
    // Phones freeze background tabs; coming back should not wait out a backoff.
    document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && this.reconnect(), { signal });
  }

  #client(token: string): RelayClient {
    return new RelayClient({ base: this.base, token, onRevision: (gap) => (this.revision = gap) });
  }

  #start(token: string, client = this.#client(token)) {
    this.#run?.controller.abort();
    void keepTokenForWorker(token).catch(() => {});
    this.client = client;
    const controller = new AbortController();
    const stream = new EventStream({
      client,
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "snapshot") this.inbox.reset(event.snapshot);
        else this.inbox.upsert(event.ask);
      },
      onState: (state) => this.#onState(state),
    });
    this.#run = { controller, stream };
    void stream.run();
    if (!this.who) client.whoami(controller.signal).then((who) => (this.who = who), () => {});
  }

  #onState(state: StreamState) {
    this.stream = state;
    if (state.state !== "stopped") return;
    if (state.kind === "unauthorized") {
      this.signOut();
      this.signInError = "The relay no longer accepts your token. Sign in again.";
    } else if (state.kind === "reload") {
      reloadOnce();
    }
  }
}

/** The relay was rolled back: the page it serves now is the matching inbox. */
export function reloadOnce(): void {
  const last = Number(sessionStorage.getItem(RELOADED_KEY) ?? 0);
  if (Date.now() - last < RELOAD_GUARD_MS) return;
  sessionStorage.setItem(RELOADED_KEY, String(Date.now()));
  location.reload();
}
