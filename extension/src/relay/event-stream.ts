import type { AskEvent, ServerEvent } from "@loopback/shared/generated/types";
import type { ListedAsk } from "./listed-ask";
import { EVENTS_SUBPROTOCOL, TICKET_SUBPROTOCOL_PREFIX } from "@loopback/shared/wire-names";
import type { RelayClient } from "./relay-client";
import { RelayError, describeError } from "./relay-error";
import { listedSnapshot, type ListedSnapshot } from "./listed-snapshot";

/** A frame as the inbox applies it: a snapshot listing every ask, or one ask's change, whole. */
export type InboxEvent = { type: "snapshot"; snapshot: ListedSnapshot } | AskEvent;

/** Where the live connection stands, for a status line the person can read. */
export type StreamState =
  | { state: "connecting" }
  | { state: "live"; since: string }
  | { state: "retrying"; reason: string; retryAt: string }
  | { state: "stopped"; reason: string; kind: "unauthorized" | "reload" };

export interface EventStreamOptions {
  client: RelayClient;
  onEvent: (event: InboxEvent) => void | Promise<void>;
  /** An ask held already, so a snapshot that lists it unchanged keeps its body. */
  held?: (id: string) => ListedAsk | undefined;
  onState?: (state: StreamState) => void;
  signal: AbortSignal;
  WebSocket?: typeof WebSocket;
}

/** Chrome keeps an MV3 worker alive only while socket messages flow, and idles it after 30 s. */
export const KEEPALIVE_MS = 20_000;
/**
 * Never more than 600 ms between tries (500, jittered) while the relay answers with an error: a
 * person looking at the inbox must see it live within a second of the relay being well, a wait the
 * ticket, the socket and the snapshot share; two ticket requests a second per open inbox are
 * nothing to it.
 */
const BACKOFF_MS = [250, 500];
/**
 * While nothing at the relay's address answers at all (the connection itself fails), a try costs
 * the relay nothing, so the wait stays at 250 ms (300 jittered): the first try after it is back
 * comes at once, and the ticket, the socket and the snapshot have the rest of the second.
 */
const UNANSWERED_MS = 250;
/** A connection that stayed up this long resets the backoff. */
const STABLE_MS = 10_000;
/** The close code the relay ends a socket with when its token is revoked. */
export const CLOSE_TOKEN_REVOKED = 4401;

/**
 * The event socket, kept open: a fresh ticket and a fresh snapshot after every drop, retried with
 * backoff, until the signal aborts or the relay says the token or the client will never do.
 */
export class EventStream {
  #options: EventStreamOptions;
  #socket: WebSocket | null = null;
  #attempt = 0;
  #wake: (() => void) | null = null;
  #state: StreamState = { state: "connecting" };

  constructor(options: EventStreamOptions) {
    this.#options = options;
  }

  get state(): StreamState {
    return this.#state;
  }

  /** Runs until aborted or stopped for good. */
  async run(): Promise<void> {
    const { signal } = this.#options;
    while (!signal.aborted) {
      this.#setState({ state: "connecting" });
      const openedAt = Date.now();
      let reason: string;
      let answered = true;
      try {
        const ended = await this.#connectOnce();
        if (ended instanceof RelayError) throw ended;
        reason = ended;
      } catch (e) {
        if (signal.aborted) return;
        if (e instanceof RelayError && (e.kind === "unauthorized" || e.kind === "reload")) {
          this.#setState({ state: "stopped", reason: e.message, kind: e.kind });
          return;
        }
        reason = describeError(e);
        // A RelayError without a status is a request that got no response at all.
        answered = !(e instanceof RelayError && e.kind === "unreachable" && e.status === 0);
      }
      if (signal.aborted) return;
      if (Date.now() - openedAt > STABLE_MS) this.#attempt = 0;
      const backoff = BACKOFF_MS[Math.min(this.#attempt++, BACKOFF_MS.length - 1)]!;
      const delay = answered ? backoff : UNANSWERED_MS;
      const jittered = Math.round(delay * (0.8 + Math.random() * 0.4));
      this.#setState({ state: "retrying", reason, retryAt: new Date(Date.now() + jittered).toISOString() });
      await this.#sleep(jittered);
    }
  }

  /** Skip the rest of a backoff wait: the network came back, or a page asked for fresh state. */
  nudge(): void {
    this.#attempt = 0;
    this.#wake?.();
  }

  /** Whether a socket is open and has delivered its snapshot. */
  get live(): boolean {
    return this.#state.state === "live";
  }

  #setState(state: StreamState) {
    this.#state = state;
    this.#options.onState?.(state);
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake = null;
        this.#options.signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
      this.#options.signal.addEventListener("abort", done, { once: true });
    });
  }

  /** One socket's life: resolves with why it ended, or with the refusal that ends the stream for good. */
  async #connectOnce(): Promise<string | RelayError> {
    const { client, signal, onEvent } = this.#options;
    const { ticket } = await client.ticket(signal);
    const Socket = this.#options.WebSocket ?? WebSocket;
    const socket = new Socket(client.eventsUrl, [EVENTS_SUBPROTOCOL, `${TICKET_SUBPROTOCOL_PREFIX}${ticket}`]);
    this.#socket = socket;

    return new Promise<string | RelayError>((resolve) => {
      let keepalive: ReturnType<typeof setInterval> | undefined;
      // Events are applied one at a time, in order, even when applying one awaits storage.
      let queue = Promise.resolve();
      const finish = (reason: string | RelayError) => {
        clearInterval(keepalive);
        signal.removeEventListener("abort", abort);
        socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
        if (socket.readyState === socket.CONNECTING || socket.readyState === socket.OPEN) socket.close(1000);
        if (this.#socket === socket) this.#socket = null;
        queue.finally(() => resolve(reason));
      };
      const abort = () => finish("stopped");
      signal.addEventListener("abort", abort, { once: true });

      socket.onopen = () => {
        keepalive = setInterval(() => {
          if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ type: "keepalive" }));
        }, KEEPALIVE_MS);
      };
      socket.onmessage = (message) => {
        let event: ServerEvent;
        try {
          event = JSON.parse(String(message.data)) as ServerEvent;
        } catch {
          return;
        }
        if (event?.type !== "snapshot" && event?.type !== "ask.opened" && event?.type !== "ask.updated") return;
        queue = queue.then(async () => {
          try {
            if (event.type !== "snapshot") await onEvent(event);
            else await onEvent({ type: "snapshot", snapshot: listedSnapshot(event.snapshot, this.#options.held ?? (() => undefined)) });
          } catch (e) {
            console.error("Loopback: applying an event failed", e);
          }
          if (event.type === "snapshot") {
            this.#attempt = 0;
            this.#setState({ state: "live", since: new Date().toISOString() });
          }
        });
      };
      socket.onerror = () => finish("The event socket failed.");
      socket.onclose = (close) => {
        if (close.code === CLOSE_TOKEN_REVOKED) {
          finish(new RelayError("unauthorized", `The relay no longer accepts this token${close.reason ? ` (${close.reason})` : ""}.`, 401));
        } else {
          finish(close.reason ? `The relay closed the event socket: ${close.reason}` : "The event socket closed.");
        }
      };
    });
  }
}
