import { replyCount } from "@loopback/shared/ask-rules/index";
import { untrack } from "svelte";
import { AskBodies, wantedBodies } from "../base/ask-bodies.svelte";
import { clock } from "../base/clock.svelte";
import type { Session } from "../base/session";
import { sendAllHeld } from "../reply/draft.svelte";
import { ReplyKeys } from "../reply/reply-keys";
import { InboxKeys } from "./inbox-keys.svelte";
import type { Route } from "./route.svelte";

/**
 * What the inbox does of its own accord as the relay, the route and the asks change: held replies
 * sent when the relay is back, the bodies of the open ask and of those likely opened next read, the
 * selection following the route and the asks, on to the next ask once a turn is taken, a new ask
 * shown from its top. Made once by the app component, during its setup, so these live and end with it.
 */
export class InboxController {
  readonly #session: Session;
  readonly #route: Route;
  readonly keys = new ReplyKeys();
  readonly nav: InboxKeys;
  readonly bodies: AskBodies;

  /** Why the ask the route names could not be read, until it is. */
  get fetchError(): string | undefined {
    return this.#route.askId ? this.bodies.failures.get(this.#route.askId) : undefined;
  }
  /** The pane the open ask scrolls in. */
  askPane = $state<HTMLElement | null>(null);

  /** The ask the route shows, once the inbox holds it whole. */
  get current() {
    return this.#route.askId ? this.#session.inbox.get(this.#route.askId) : undefined;
  }

  get live() {
    return this.#session.stream?.state === "live";
  }

  constructor(session: Session, route: Route) {
    this.#session = session;
    this.#route = route;
    this.nav = new InboxKeys(session.inbox, route, this.keys);
    this.bodies = new AskBodies(session.inbox);
    $effect(() => clock.use());
    this.#sendHeldWhenLive();
    this.#readBodies();
    this.#followTheRoute();
    this.#moveOnOnceTaken();
    this.#showANewAskFromItsTop();
    $effect(() => this.nav.keepSelectionInWalk());
    $effect(() => this.nav.openSelectedWhenWide());
  }

  // Replies held while the relay was unreachable go out as soon as it is back, or are let go when
  // an ask shows their turn already taken.
  #sendHeldWhenLive() {
    $effect(() => {
      if (!this.live) return;
      void this.#session.inbox.open;
      untrack(() => sendAllHeld(this.#session));
    });
  }

  // The list shows summaries. The open ask's body is read (or the ask itself, which a deep link or a
  // "revises" link can name outside the live set), and those of the asks likely opened next.
  #readBodies() {
    $effect(() => {
      const { inbox, client } = this.#session;
      this.bodies.want(client, wantedBodies(this.#route.askId, this.nav.selectedId, this.nav.walk, inbox.ordered));
    });
    $effect(() => () => this.bodies.stop());
  }

  #followTheRoute() {
    $effect(() => {
      void this.#route.askId;
      untrack(() => this.nav.followRoute());
    });
  }

  // Once the person's turn on the open ask is taken, on to the next ask waiting for them.
  #moveOnOnceTaken() {
    let seen: { id: string; replies: number } | null = null;
    $effect(() => {
      const ask = this.current;
      if (!ask) return;
      const replies = replyCount(ask);
      const before = seen;
      seen = { id: ask.id, replies };
      if (before?.id === ask.id && replies > before.replies && ask.status !== "awaiting_human") untrack(() => this.nav.moveOn(ask.id));
    });
  }

  // Scroll the new ask to its top, so j/k through reviews always starts at the beginning. In the
  // next frame: scrolling forces a layout, which done now would be thrown away as the ask's
  // blocks finish rendering (a large review spent ~50 ms on it).
  #showANewAskFromItsTop() {
    $effect(() => {
      void this.#route.askId;
      const frame = requestAnimationFrame(() => this.askPane?.scrollTo?.({ top: 0 }));
      return () => cancelAnimationFrame(frame);
    });
  }
}
