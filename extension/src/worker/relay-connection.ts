import { isWhole, type ListedAsk } from "../relay/listed-ask";
import { browser } from "wxt/browser";
import { EventStream, type InboxEvent, type StreamState } from "../relay/event-stream";
import { RelayClient } from "../relay/relay-client";
import type { RevisionGap } from "../relay/revision";
import { AskMirror } from "./ask-mirror";
import { showBadge } from "./badge";
import { clearAnsweredElsewhere, clearNotification, notifyAsk, notifyNotSent, parseNotificationId, replyOfButton } from "./notify";
import { indexItem, readSettings, readStatus, readToken, statusItem, type Status } from "./storage-items";

/** More new asks than this in one snapshot are shown by the badge alone, not one notification each. */
const MAX_NOTIFICATIONS_AT_ONCE = 3;

/**
 * The worker's one job: keep the event socket open for the configured relay, mirror what it says
 * into storage, and keep the badge and notifications true. Safe to `ensure()` as often as anyone likes.
 */
export class RelayConnection {
  readonly mirror = new AskMirror();
  #run: { controller: AbortController; stream: EventStream } | null = null;
  #starting: Promise<void> | null = null;
  #status: Status = { stream: null, revision: "same", who: null };

  /** Connects if configured and not connected; skips a pending backoff if one is running. */
  ensure(): Promise<void> {
    if (this.#run) {
      if (this.#run.stream.state.state === "retrying") this.#run.stream.nudge();
      return Promise.resolve();
    }
    this.#starting ??= this.#start().finally(() => (this.#starting = null));
    return this.#starting;
  }

  /** Starts over from nothing: the relay or the token changed, or the person asked to reconnect. */
  async restart(): Promise<void> {
    await this.#starting;
    this.#run?.controller.abort();
    this.#run = null;
    await this.mirror.clear();
    await indexItem.removeValue();
    await this.#setStatus({ stream: null, revision: "same", who: null });
    await this.ensure();
  }

  async #start(): Promise<void> {
    const [settings, token, status] = await Promise.all([readSettings(), readToken(), readStatus()]);
    this.#status = status;
    await this.mirror.load();
    if (!settings.relayUrl || !token) {
      await this.#setStatus({ stream: null, revision: "same", who: null });
      await showBadge(0);
      return;
    }
    // A refused token stays refused: asking again on every wake would only trip the relay's rate
    // limit. A new token, or the person pressing reconnect, goes through restart() instead.
    if (status.stream?.state === "stopped" && status.stream.kind === "unauthorized") {
      await this.#badge();
      return;
    }
    const client = new RelayClient({
      base: settings.relayUrl,
      token,
      onRevision: (gap) => this.#setRevision(gap),
    });
    const index = await indexItem.getValue();
    // Asks from another relay mean nothing here.
    if (index?.relay !== client.base) await this.mirror.clear();

    const controller = new AbortController();
    const stream = new EventStream({
      client,
      signal: controller.signal,
      onEvent: (event) => this.apply(event, client.base),
      held: (id) => this.mirror.get(id),
      onState: (state) => this.#setStream(state),
    });
    this.#run = { controller, stream };
    client.whoami(controller.signal).then(
      (who) => this.#setStatus({ ...this.#status, who }),
      () => {},
    );
    void stream.run().finally(() => {
      // Stopped for a rolled-back relay: the next wake tries again, as the relay may be upgraded by then.
      if (this.#run?.stream === stream && stream.state.state === "stopped") this.#run = null;
    });
  }

  /** Applies one frame from the relay at `base`: storage, badge, notifications. */
  async apply(event: InboxEvent, base: string): Promise<void> {
    const { notify } = await readSettings();
    if (event.type === "snapshot") {
      const index = await indexItem.getValue();
      const known = index?.relay === base;
      const fresh = await this.mirror.reset(event.snapshot);
      await indexItem.setValue({ relay: base, syncedAt: new Date().toISOString() });
      // What arrived while the worker slept is news too; a first sync is not.
      const waiting = fresh.filter((a) => a.status === "awaiting_human");
      if (known && notify && waiting.length <= MAX_NOTIFICATIONS_AT_ONCE) await Promise.all(waiting.map(notifyQuietly));
      const awaiting = new Set(event.snapshot.open.filter((a) => a.status === "awaiting_human").map((a) => a.id));
      await clearAnsweredElsewhere(awaiting).catch(() => {});
    } else {
      const isNew = await this.mirror.upsert(event.ask);
      if (isNew && notify && event.ask.status === "awaiting_human") await notifyQuietly(event.ask);
      if (event.ask.status !== "awaiting_human") void clearNotification(event.ask).catch(() => {});
    }
    await this.#badge();
  }

  /**
   * Sends the reply a notification's button stands for (a choice, or Approve), as the person would
   * from the panel. Whatever the relay refuses is said on the notification, which stays.
   */
  async answerFromNotification(notificationId: string, buttonIndex: number): Promise<void> {
    const parsed = parseNotificationId(notificationId);
    if (!parsed) return;
    const [settings, token] = await Promise.all([readSettings(), readToken()]);
    if (!settings.relayUrl || !token) return;
    const client = new RelayClient({ base: settings.relayUrl, token, onRevision: (gap) => this.#setRevision(gap) });
    try {
      await this.mirror.load();
      const held = this.mirror.get(parsed.askId);
      const ask = held && isWhole(held) ? held : await client.ask(parsed.askId);
      const reply = replyOfButton(ask, buttonIndex, parsed.layout);
      if (!reply) return;
      const after = await client.reply(ask.id, reply);
      await this.mirror.upsert(after);
      await browser.notifications.clear(notificationId);
      await this.#badge();
    } catch (e) {
      await notifyNotSent(notificationId, e instanceof Error ? e.message : String(e)).catch(() => {});
    }
  }

  async #badge() {
    const trouble = this.#status.stream?.state === "stopped";
    await showBadge(this.mirror.awaitingHuman, trouble);
  }

  async #setStream(stream: StreamState) {
    await this.#setStatus({ ...this.#status, stream });
    if (stream.state === "stopped") await this.#badge();
  }

  async #setRevision(revision: RevisionGap) {
    if (revision !== this.#status.revision) await this.#setStatus({ ...this.#status, revision });
  }

  async #setStatus(status: Status) {
    this.#status = status;
    await statusItem.setValue(status);
  }
}

async function notifyQuietly(ask: ListedAsk) {
  try {
    await notifyAsk(ask);
  } catch (e) {
    console.warn("Loopback: could not show a notification", e);
  }
}
