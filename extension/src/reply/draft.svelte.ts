import type { Ask, Reply, Responded } from "@loopback/shared/generated/types";
import { SvelteSet } from "svelte/reactivity";
import { latestReply, replyCount } from "@loopback/shared/ask-rules/index";
import { RelayError, describeError } from "../relay/relay-error";
import type { Session } from "../base/session";
import { ReviewComments } from "../review/line-comments.svelte";
import { askTitle } from "../base/ask-labels";
import { sentNotice } from "./sent-notice.svelte";

/** How long a verdict or a dismissal waits before it goes, so a stray key, click or tap can be taken back. */
export const UNDO_MS = 5_000;

/** A reply kept back from the relay: for its undo window, or because the relay could not be reached. */
export interface Held {
  reply: Reply;
  reason: "undo" | "offline";
  /** When the undo window ends, in epoch ms. */
  sendAt?: number;
  /** The person's turns on the ask when the reply was made, to tell afterwards whether it landed. */
  turn: number;
}

export interface PointDraft {
  text: string;
  resolved: boolean;
}

/**
 * What the person has typed on one ask, kept while they move between asks, and how sending it went.
 * A refused reply keeps every word; only a reply the relay took clears it.
 */
export class Draft {
  selected = $state<string[]>([]);
  text = $state("");
  askingBack = $state(false);
  followUp = $state("");
  points = $state<Record<string, PointDraft>>({});
  /** A review's comments on lines and blocks. */
  readonly comments = new ReviewComments();
  confirmingDismiss = $state(false);
  /** An approval's command or file content as the person edited it before allowing; null while untouched. */
  edited = $state<string | null>(null);
  sending = $state(false);
  error = $state<string | null>(null);
  #held = $state<Held | null>(null);
  timer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly askId = "") {}

  get held(): Held | null {
    return this.#held;
  }

  set held(held: Held | null) {
    this.#held = held;
    if (held?.reason === "offline") offline.add(this.askId);
    else offline.delete(this.askId);
  }

  /** While a reply is on its way (or held back), what it was built from must not change. */
  get locked(): boolean {
    return this.sending || this.held !== null;
  }

  point(id: string): PointDraft {
    return (this.points[id] ??= { text: "", resolved: false });
  }
}

const drafts = new Map<string, Draft>();

/** The asks whose reply is held until the relay can be reached, so the inbox can name them. */
const offline = new SvelteSet<string>();
export const heldForRelay = (): string[] => [...offline];

/**
 * Moves whenever a draft is forgotten, so every view that derived one takes it again (the new, empty
 * draft for the ask forgotten; the same one for any other). The person's `200` can come after the
 * socket's frame of the agent's next turn (two connections): a view re-derived on that frame kept the
 * sent draft, and the next Send would have sent its words again.
 */
let forgotten = $state(0);

export function draftFor(askId: string): Draft {
  void forgotten;
  let draft = drafts.get(askId);
  if (!draft) drafts.set(askId, (draft = new Draft(askId)));
  return draft;
}

export function forgetDraft(askId: string): void {
  const draft = drafts.get(askId);
  clearTimeout(draft?.timer);
  drafts.delete(askId);
  offline.delete(askId);
  forgotten++;
}

/**
 * Sends a reply; on success the ask moves on and the draft is dropped, on refusal the relay's words
 * show. One the relay could not be reached for is held, and sent by `sendHeld` once it is back.
 * `undoable` holds it back for UNDO_MS first.
 */
export async function sendReply(session: Session, ask: Ask, draft: Draft, reply: Reply, options: { undoable?: boolean } = {}): Promise<boolean> {
  if (draft.sending || draft.held) return false;
  const turn = replyCount(ask);
  if (options.undoable) {
    draft.error = null;
    draft.held = { reply, reason: "undo", sendAt: Date.now() + UNDO_MS, turn };
    draft.timer = setTimeout(() => void sendHeld(session, ask.id, draft), UNDO_MS);
    return false;
  }
  return deliver(session, ask.id, draft, reply, turn);
}

/** Takes back a reply in its undo window; the draft is as it was. */
export function undoHeld(draft: Draft): void {
  if (draft.held?.reason !== "undo") return;
  clearTimeout(draft.timer);
  draft.held = null;
}

/** Lets go of a reply held for the relay, back to the form with every word in it. */
export function editHeld(draft: Draft): void {
  clearTimeout(draft.timer);
  draft.held = null;
}

/**
 * Sends a held reply now, unless it already landed: after a lost response the ask's thread shows the
 * person's turn taken, and sending again would be refused (409 `ask.not_your_turn`) or say it twice.
 */
export async function sendHeld(session: Session, askId: string, draft = drafts.get(askId)): Promise<boolean> {
  const held = draft?.held;
  if (!draft || !held || draft.sending) return false;
  clearTimeout(draft.timer);
  const ask = session.inbox.get(askId);
  if (ask && settled(session, ask, draft, held)) return false;
  return deliver(session, askId, draft, held.reply, held.turn);
}

/** Sends every reply held while the relay was unreachable; called when the connection is live again. */
export function sendAllHeld(session: Session): void {
  for (const [askId, draft] of drafts) if (draft.held?.reason === "offline") void sendHeld(session, askId, draft);
}

/** The page is closing: replies still in their undo window go now, as the person meant them to. */
export function sendHeldNowOnLeaving(session: Session): void {
  for (const [askId, draft] of drafts) {
    if (draft.held?.reason !== "undo") continue;
    clearTimeout(draft.timer);
    void session.client?.reply(askId, draft.held.reply, undefined, { keepalive: true }).catch(() => {});
  }
}

/** Whether the ask has moved past the held reply's turn; if so, the hold ends and the person is told why. */
function settled(session: Session, ask: Ask, draft: Draft, held: Held): boolean {
  if (replyCount(ask) > held.turn) {
    draft.held = null;
    if (sameReply(latestReply(ask)?.reply, held.reply)) forgetDraft(ask.id);
    else draft.error = "This ask was answered elsewhere while your reply waited; yours was not sent.";
    session.applied(ask);
    return true;
  }
  if (ask.status !== "awaiting_human") {
    draft.held = null;
    draft.error = "This ask moved on while your reply waited; it was not sent, and your words are still here.";
    return true;
  }
  return false;
}

async function deliver(session: Session, askId: string, draft: Draft, reply: Reply, turn: number): Promise<boolean> {
  const client = session.client;
  if (!client) {
    draft.held = null;
    draft.error = "Not connected to a relay: open the settings to connect.";
    return false;
  }
  draft.sending = true;
  draft.error = null;
  try {
    const updated = await client.reply(askId, reply);
    // Forgotten before the new ask shows, so a briefing's next round starts from an empty draft. A
    // question asked back carries no line comments: they wait, kept, for the verdict.
    const waiting = reply.outcome === "follow_up" ? draft.comments.list : [];
    const unsent = reply.outcome === "responded" ? pointsNotIn(reply, draft.points) : {};
    forgetDraft(askId);
    draft.held = null;
    if (waiting.length) draftFor(askId).comments.list = waiting;
    // One briefing point sent alone: the words on the others wait, kept, for the next reply.
    if (Object.keys(unsent).length) draftFor(askId).points = unsent;
    sentNotice.record(askId, askTitle(updated), reply);
    session.applied(updated);
    return true;
  } catch (e) {
    if (e instanceof RelayError && e.kind === "unreachable") {
      const held: Held = { reply, reason: "offline", turn };
      draft.held = held;
      // The relay may have taken it and only its answer was lost; the socket can have said so already.
      const ask = session.inbox.get(askId);
      if (ask) settled(session, ask, draft, held);
      return false;
    }
    const wasHeld = draft.held !== null;
    draft.held = null;
    // A held reply refused as out of turn may be the one that landed before its response was lost.
    if (wasHeld && e instanceof RelayError && e.problem?.code === "ask.not_your_turn") {
      const fresh = await client.ask(askId).catch(() => null);
      if (fresh && settled(session, fresh, draft, { reply, reason: "offline", turn })) return false;
    }
    if (e instanceof RelayError && e.kind === "reload" && session.surface === "web") location.reload();
    draft.error = describeError(e);
    return false;
  } finally {
    draft.sending = false;
  }
}

/** The points drafted on with words or a resolve that a briefing reply did not carry. */
function pointsNotIn(reply: Responded, points: Record<string, PointDraft>): Record<string, PointDraft> {
  const named = new Set(reply.points.map((p) => p.point));
  return Object.fromEntries(Object.entries(points).filter(([id, p]) => !named.has(id) && (p.text.trim() !== "" || p.resolved)).map(([id, p]) => [id, { ...p }]));
}

/** The same reply, whatever order its fields came back in. */
function sameReply(a: Reply | undefined, b: Reply): boolean {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value && typeof value === "object"
        ? Object.fromEntries(Object.entries(value).sort(([x], [y]) => x.localeCompare(y)).map(([k, v]) => [k, canonical(v)]))
        : value;
  return !!a && JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}
