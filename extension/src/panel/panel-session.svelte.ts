import type { Ask, Whoami } from "@loopback/shared/generated/types";
import { browser } from "wxt/browser";
import { isOpen } from "../base/ask-order";
import type { ListedAsk } from "../relay/listed-ask";
import { Inbox } from "../base/inbox.svelte";
import type { Route } from "../inbox/route.svelte";
import type { Session } from "../base/session";
import type { StreamState } from "../relay/event-stream";
import { RelayClient } from "../relay/relay-client";
import type { RevisionGap } from "../relay/revision";
import { PANEL_PORT, type PanelMessage, type WorkerMessage } from "../worker/messages";
import { ASK_PREFIX, focusItem, indexItem, readAsks, readSettings, readStatus, readToken, settingsItem, statusItem, tokenItem, type Status } from "../worker/storage-items";

/** While the panel is open it pokes the worker this often: a safety net behind the port below. */
const WAKE_MS = 15_000;
/** A breath before connecting again to a worker that just stopped, so the new one is started. */
const RECONNECT_PORT_MS = 50;
/** A notification click older than this is not acted on when the panel opens later. */
const FOCUS_FRESH_MS = 60_000;

/**
 * The side panel's view of the worker's state: it reads what the worker stored, follows every
 * change, and talks to the relay directly only to reply and to fetch files and history.
 */
export class PanelSession implements Session {
  readonly surface = "extension" as const;
  readonly inbox = new Inbox();
  client = $state<RelayClient | null>(null);
  stream = $state<StreamState | null>(null);
  revision = $state<RevisionGap>("same");
  who = $state<Whoami | null>(null);

  constructor(private readonly route: Route) {}

  async start(signal: AbortSignal): Promise<void> {
    const unwatch = [
      settingsItem.watch(() => void this.#readClient()),
      tokenItem.watch(() => void this.#readClient()),
      statusItem.watch(() => void this.#readStatus()),
      // The first snapshot stored: the asks in storage are now the live set.
      indexItem.watch((next, previous) => void (!previous && this.#readAsks())),
    ];
    browser.storage.onChanged.addListener(this.#onAskChanged);
    browser.runtime.onMessage.addListener(this.#onMessage);
    signal.addEventListener("abort", () => {
      for (const stop of unwatch) stop();
      browser.storage.onChanged.removeListener(this.#onAskChanged);
      browser.runtime.onMessage.removeListener(this.#onMessage);
    });
    const timer = setInterval(() => this.#wake(), WAKE_MS);
    signal.addEventListener("abort", () => clearInterval(timer));
    document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && this.#wake(), { signal });

    await Promise.all([this.#readClient(), this.#readStatus(), this.#readAsks()]);
    this.#holdPort(signal);
    this.#wake();
    const focus = await focusItem.getValue();
    if (focus && Date.now() - focus.at < FOCUS_FRESH_MS) {
      this.route.open(focus.askId);
      await focusItem.removeValue();
    }
  }

  applied(ask: Ask): void {
    this.inbox.upsert(ask);
  }

  reconnect(): void {
    this.#wake();
  }

  openSettings(): void {
    void browser.runtime.openOptionsPage();
  }

  /**
   * Keeps a port open to the worker. Chrome stops an idle worker without a word, and what it
   * stored (a "live" connection, the asks) goes stale at once: the port's end tells the panel so,
   * the panel stops saying Live, and connecting again starts a new worker, which reconnects.
   */
  #holdPort(signal: AbortSignal) {
    if (signal.aborted) return;
    const port = browser.runtime.connect({ name: PANEL_PORT });
    signal.addEventListener("abort", () => port.disconnect(), { once: true });
    port.onDisconnect.addListener(() => {
      if (signal.aborted) return;
      if (this.stream?.state === "live") this.stream = { state: "connecting" };
      setTimeout(() => this.#holdPort(signal), RECONNECT_PORT_MS);
    });
  }

  #wake() {
    browser.runtime.sendMessage({ type: "wake" } satisfies WorkerMessage).catch(() => {});
  }

  async #readClient() {
    const [settings, token] = await Promise.all([readSettings(), readToken()]);
    this.client = settings.relayUrl && token ? new RelayClient({ base: settings.relayUrl, token }) : null;
    if (!this.client) this.inbox.reset({ open: [], recent: [] });
  }

  async #readStatus() {
    const s: Status = await readStatus();
    this.stream = s.stream;
    this.revision = s.revision;
    this.who = s.who;
  }

  async #readAsks() {
    if (!(await indexItem.getValue())) return;
    const asks = [...(await readAsks()).values()];
    this.inbox.reset({ open: asks.filter(isOpen), recent: asks.filter((a) => !isOpen(a)) });
  }

  // One key per ask, so these are followed by prefix rather than as defined items.
  #onAskChanged = (changes: Record<string, { oldValue?: unknown; newValue?: unknown }>, area: string) => {
    if (area !== "local") return;
    for (const [key, change] of Object.entries(changes)) {
      if (!key.startsWith(ASK_PREFIX)) continue;
      if (change.newValue) this.inbox.upsert(change.newValue as ListedAsk);
      else this.inbox.remove(key.slice(ASK_PREFIX.length));
    }
  };

  #onMessage = (message: PanelMessage) => {
    if (message?.type === "open-ask") {
      this.route.open(message.askId);
      void focusItem.removeValue();
    }
  };
}
