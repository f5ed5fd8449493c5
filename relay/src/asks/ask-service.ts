// The one place asks are opened and answered (waiting for the person is asks/waiting.ts). REST, the
// event socket and MCP are thin adapters over this class; it never sees a framework, a request or a socket.
import type {
  ApprovalInput,
  Ask,
  AskSummary,
  AskPage,
  Block,
  BriefingAnswerInput,
  BriefingInput,
  FollowUpInput,
  QuestionInput,
  Reply,
  ReviewInput,
  Snapshot,
} from "@loopback/shared/generated/types";
import * as schemas from "@loopback/shared/generated/schemas";
import {
  applyBriefingAnswer,
  applyFollowUpAnswer,
  applyReply,
  checkBriefingAnswer,
  checkFollowUpAnswer,
  checkReply,
  checkOpen,
  checkReplySize,
  openAsk,
  replyCount,
} from "@loopback/shared/ask-rules/index";
import { LoopbackProblem, problem } from "@loopback/shared/problems";
import type { Caller } from "../auth/gate.ts";
import { askSeenBy, canSee } from "../auth/who-sees-an-ask.ts";
import type { Clock } from "../clock.ts";
import type { AskEventBus } from "./ask-event-bus.ts";
import type { AskFeed, PendingChange } from "./ask-feed.ts";
import { afterThisTurn } from "./after-this-turn.ts";
import { hashSecret, newId } from "../ids.ts";
import { parseShape } from "../parse-shape.ts";
import type { AppendOutcome, AskHead, AskRecords, CallRow, InsertOutcome, VersionedAsk } from "../storage/store.ts";
import { SummaryCache } from "./summary-cache.ts";
import type { UploadService } from "../uploads/upload-service.ts";
import type { Waiting } from "./waiting.ts";
import type { RecentAsks } from "./recent-asks.ts";

export const RECENT_CLOSED = 50;
/** Asks read from the store at once while a snapshot is made: what it holds at most besides summaries. */
const SNAPSHOT_PAGE = 10;
/** The newest open asks a snapshot carries whole, so the first opens at once: at most this many, and this many bytes of them. */
const SNAPSHOT_WHOLE_ASKS = 3;
const SNAPSHOT_WHOLE_BYTES = 1024 * 1024;
export const DEFAULT_PAGE = 20;
/** What a reply decided on a copy of the ask that was behind is refused with: decided again on the ask as stored. */
const MOVED_ON = new Set(["ask.closed", "ask.not_your_turn"]);

export type OpenInput =
  | { kind: "question"; input: QuestionInput }
  | { kind: "review"; input: ReviewInput }
  | { kind: "briefing"; input: BriefingInput }
  | { kind: "approval"; input: ApprovalInput };

const INPUT_SCHEMAS = {
  question: schemas.QuestionInput,
  review: schemas.ReviewInput,
  briefing: schemas.BriefingInput,
  approval: schemas.ApprovalInput,
} as const;

/** Throws the first problem a rule found. */
function assertOk(p: LoopbackProblem | null | undefined): void {
  if (p) throw p;
}

function imageIds(blocks: Block[] | undefined): string[] {
  return (blocks ?? []).flatMap((b) => (b.type === "image" ? [b.uploadId] : []));
}

/** What opening an ask did: opened a new one, or picked up the same input's ask (see `open`). */
export interface Opened {
  askId: string;
  /** A new ask, already announced as `ask.opened` with `waiting: true`. */
  opened: boolean;
  /**
   * For a new ask: ends the hold that keeps it `waiting` until its call follows it (or gives up).
   * Call it once the call follows the ask, or when it will not; calling it twice does nothing.
   */
  release?: () => void;
  /** The same input's ask whose reply was handed over within the reclaim window: hand it over again. */
  reclaimed: boolean;
  /** The call's durable record was stored with the new ask. */
  recorded?: boolean;
}

export interface AnswerOptions {
  /** A call follows the ask once the answer is in: hold it `waiting` from the commit on (see `answered`). */
  followed?: boolean;
}

/** The agent's answer as committed; `release` ends the hold on `waiting` once its call follows (or will not). */
export interface Answered {
  ask: Ask;
  release?: () => void;
}

/** The durable record of a blocking call following `askId` from `fromTurn`, for a call that can be resumed. */
export type CallRecordOf = (askId: string, fromTurn: number) => CallRow;

/** The snapshot of revisions up to 4: every ask whole. */
export interface WholeSnapshot {
  open: Ask[];
  recent: Ask[];
}

export class AskService {
  /** Summaries as last read, so a snapshot reads the bodies only of asks that changed since. */
  private summaries = new SummaryCache();

  constructor(
    private store: AskRecords,
    private uploads: UploadService,
    /** What the inboxes are shown, heard to keep each ask's summary current. */
    bus: Pick<AskEventBus, "listen" | "onResync">,
    /** Where this service's changes go to be shown and to wake whoever follows the ask. */
    private feed: Pick<AskFeed, "pending" | "opened" | "stored" | "committed">,
    private clock: Clock,
    private waiting: Waiting,
    /** How long a handed-over reply stays claimable by asking again with the same input. */
    private reclaimMs: number,
    /** Open asks one token, and one space, may have at once. */
    private caps: { maxOpenAsksPerToken: number; maxOpenAsksPerSpace: number } = { maxOpenAsksPerToken: Infinity, maxOpenAsksPerSpace: Infinity },
    /** On PostgreSQL, the asks this relay opened or changed lately, which a reply starts from without a read. */
    private recent?: RecentAsks,
  ) {
    // Every change published is summarized as it goes out, so a snapshot after it reads no body.
    bus.listen((_spaceId, event, version) => this.summaries.rememberSoon(event.ask, version));
    // Changes may have been missed, or the database restored to an older copy: the next snapshot
    // reads the asks it lists from the store, as it reads everything else then.
    bus.onResync(() => this.summaries.clear());
  }

  // --- reading ------------------------------------------------------------------------------------

  private withWaiting(ask: Ask): Ask {
    return this.waiting.withWaiting(ask);
  }

  private load(caller: Caller, askId: string, read?: Promise<VersionedAsk | undefined>): Promise<VersionedAsk> {
    return askSeenBy(this.store, caller, askId, read);
  }

  /**
   * Begins reading an ask before its reader is known, to pass to `get` or `reply` once the token is
   * checked: on PostgreSQL the read and the check then take one round trip instead of two.
   */
  read(askId: string): Promise<VersionedAsk | undefined> {
    const held = this.recent?.peek(askId);
    if (held) return Promise.resolve(held);
    const read = this.store.get(askId);
    // A refused token leaves it unread: its failure is the request's only if it is read.
    read.catch(() => {});
    return read;
  }

  async get(caller: Caller, askId: string, read?: Promise<VersionedAsk | undefined>): Promise<Ask> {
    return this.withWaiting((await this.load(caller, askId, read)).ask);
  }

  /**
   * What an inbox starts from: every open ask and the most recently closed, summarized, and the
   * newest few open asks whole. Only the asks whose summary is not current here are read whole, a
   * page at a time; the rest of the snapshot reads no body at all.
   */
  async snapshot(caller: Caller): Promise<Snapshot> {
    const heads = await this.store.listHeads(caller.spaceId, RECENT_CLOSED);
    const summaries = new Map<string, AskSummary>();
    const all = [...heads.open, ...heads.recent];
    for (const h of all) {
      const known = this.summaries.get(h.id, h.version);
      if (known) summaries.set(h.id, known);
    }
    const wholeIds = new Set(heads.open.slice(0, SNAPSHOT_WHOLE_ASKS).map((h) => h.id));
    const toRead = [...new Set([...wholeIds, ...all.filter((h) => !summaries.has(h.id)).map((h) => h.id)])];
    const whole = new Map<string, Ask>();
    for (let i = 0; i < toRead.length; i += SNAPSHOT_PAGE) {
      for (const { ask, version } of await this.store.listByIds(toRead.slice(i, i + SNAPSHOT_PAGE))) {
        summaries.set(ask.id, this.summaries.remember(ask, version));
        if (wholeIds.has(ask.id)) whole.set(ask.id, ask);
      }
    }
    let wholeBytes = 0;
    const first = [...wholeIds].flatMap((id) => {
      const ask = whole.get(id);
      if (!ask) return [];
      wholeBytes += JSON.stringify(ask).length;
      return wholeBytes <= SNAPSHOT_WHOLE_BYTES ? [this.withWaiting(ask)] : [];
    });
    const listed = (list: AskHead[]) => list.flatMap((h) => (summaries.has(h.id) ? [{ ...summaries.get(h.id)!, waiting: this.waiting.isFollowed(h.id) }] : []));
    return { open: listed(heads.open), recent: listed(heads.recent), whole: first };
  }

  /**
   * The snapshot as revisions up to 4 read it, every ask whole: open asks newest first, then the
   * most recently closed, until `maxBytes` of them (as JSON). A reader finds any left out by its id.
   */
  async wholeSnapshot(caller: Caller, maxBytes: number): Promise<WholeSnapshot> {
    const snapshot: WholeSnapshot = { open: [], recent: [] };
    let bytes = 0;
    const fits = (ask: Ask) => {
      const size = JSON.stringify(ask).length;
      if (bytes + size > maxBytes) return false;
      bytes += size;
      return true;
    };
    for await (const ask of this.eachOpen(caller.spaceId)) if (fits(ask)) snapshot.open.push(ask);
    for await (const ask of this.eachRecent(caller.spaceId)) if (fits(ask)) snapshot.recent.push(ask);
    return snapshot;
  }

  /** A space's open asks, newest first, read from the store a page at a time. */
  private async *eachOpen(spaceId: string): AsyncGenerator<Ask> {
    let after: { createdAt: string; id: string } | undefined;
    for (;;) {
      const page = await this.store.listOpen(spaceId, SNAPSHOT_PAGE, after);
      for (const ask of page) yield this.withWaiting(ask);
      if (page.length < SNAPSHOT_PAGE) return;
      const last = page.at(-1)!;
      after = { createdAt: last.createdAt, id: last.id };
    }
  }

  /** A space's most recently closed asks, newest first, read a page at a time. */
  private async *eachRecent(spaceId: string): AsyncGenerator<Ask> {
    let before: string | undefined;
    for (let left = RECENT_CLOSED; left > 0; ) {
      const page = await this.store.listClosed(spaceId, Math.min(SNAPSHOT_PAGE, left), before);
      for (const ask of page) yield this.withWaiting(ask);
      left -= page.length;
      if (page.length < SNAPSHOT_PAGE) return;
      before = page.at(-1)!.closedAt;
    }
  }

  async history(caller: Caller, limit = DEFAULT_PAGE, before?: string): Promise<AskPage> {
    // One more than asked tells whether there is a next page without a count query.
    const rows = await this.store.listClosed(caller.spaceId, limit + 1, before);
    const items = rows.slice(0, limit);
    const page: AskPage = { items };
    if (rows.length > limit) page.nextBefore = items.at(-1)!.closedAt;
    return page;
  }

  // --- the agent's side ---------------------------------------------------------------------------

  /**
   * Opens an ask for a blocking call, which follows it at once: so it is announced as waiting in its
   * first frame.
   */
  async open(caller: Caller, what: OpenInput, client?: string, call?: CallRecordOf): Promise<Opened> {
    const input = parseShape(INPUT_SCHEMAS[what.kind], what.input, "input.invalid");
    assertOk(checkOpen(what.kind, input as any));
    const blocks =
      what.kind === "review"
        ? (input as ReviewInput).content
        : what.kind === "briefing"
          ? (input as BriefingInput).sections.flatMap((s) => s.points.flatMap((p) => p.content ?? []))
          : [];
    await this.assertImagesExist(caller, blocks);
    if (what.kind === "review" && (input as ReviewInput).revises) {
      const revised = await this.store.get((input as ReviewInput).revises!);
      if (!revised || !canSee(caller, revised.spaceId, revised.ask) || revised.ask.kind !== "review") throw problem("ask.revises_unknown");
    }
    // An agent whose call was cut off (a crash, a client timeout) asks again with the same input: it
    // picks up the same ask, and any reply given meanwhile, instead of putting the question twice.
    const fingerprint = hashSecret(`${caller.person.id}\n${what.kind}\n${JSON.stringify(input)}`);
    const reclaimSince = new Date(this.clock.steadyWallMs() - this.reclaimMs).toISOString();
    const resumable = await this.store.findResumable(caller.spaceId, fingerprint, reclaimSince);
    if (resumable) return { askId: resumable.stored.ask.id, opened: false, reclaimed: resumable.reclaimed };
    const ask = openAsk(what.kind, input as any, {
      id: newId("ask"),
      at: this.clock.now(),
      client,
      raisedBy: caller.person,
    });
    const { maxOpenAsksPerToken: perToken, maxOpenAsksPerSpace: perSpace } = this.caps;
    let release: (() => void) | undefined;
    const { outcome: stored } = await this.inPlace(ask.id, "inserted", (change) =>
      this.store.insert(caller.spaceId, ask, fingerprint, call?.(ask.id, 0), { tokenId: caller.tokenId, maxPerToken: perToken, maxPerSpace: perSpace }, () => {
        // Shown the moment it is stored, not after the promise jobs that bring the commit back here.
        // Announced as waiting in its first frame, and held so until its call follows it: between
        // the two the call records where it starts, and a reader of the ask meanwhile must see the same.
        release = this.waiting.hold(ask.id);
        this.recent?.keep({ spaceId: caller.spaceId, ask, delivered: 0, deliveredAt: null, version: 0 });
        this.feed.opened(caller.spaceId, ask, change);
      }),
    );
    if (stored === "token_full") throw problem("asks.too_many", `A token may have ${perToken} open at once (LOOPBACK_MAX_OPEN_ASKS_PER_TOKEN).`);
    if (stored === "space_full") throw problem("asks.space_full", `A space may have ${perSpace} open at once (LOOPBACK_MAX_OPEN_ASKS_PER_SPACE).`);
    return { askId: ask.id, opened: true, reclaimed: false, release, recorded: Boolean(call) };
  }

  async answerBriefing(caller: Caller, raw: BriefingAnswerInput, opts: AnswerOptions = {}): Promise<Answered> {
    const input = parseShape(schemas.BriefingAnswerInput, raw, "input.invalid");
    const stored = await this.load(caller, input.askId);
    assertOk(checkBriefingAnswer(stored.ask, input));
    await this.assertImagesExist(caller, input.answers.flatMap((a) => [...(a.content ?? []), ...(a.points ?? []).flatMap((p) => p.content ?? [])]));
    return this.answered(caller, stored, applyBriefingAnswer(stored.ask, input, this.clock.now()), opts);
  }

  async answerFollowUp(caller: Caller, raw: FollowUpInput, opts: AnswerOptions = {}): Promise<Answered> {
    const input = parseShape(schemas.FollowUpInput, raw, "input.invalid");
    const stored = await this.load(caller, input.askId);
    assertOk(checkFollowUpAnswer(stored.ask, input));
    await this.assertImagesExist(caller, input.content);
    return this.answered(caller, stored, applyFollowUpAnswer(stored.ask, input, this.clock.now()), opts);
  }

  /**
   * Commits the agent's answer. For a call that waits on the person's next turn, the ask is held
   * `waiting` from before the commit: the frame that tells the inbox it is the person's move already
   * says an agent waits, instead of saying nobody does until the call has followed (two store round
   * trips later on PostgreSQL), as `open` does for a new ask.
   */
  private async answered(caller: Caller, stored: VersionedAsk, after: Ask, opts: AnswerOptions): Promise<Answered> {
    const release = opts.followed ? this.waiting.hold(after.id) : undefined;
    try {
      return { ask: await this.commit(caller, stored, after), release };
    } catch (e) {
      release?.();
      throw e;
    }
  }

  private async assertImagesExist(caller: Caller, blocks: Block[] | undefined): Promise<void> {
    const ids = imageIds(blocks);
    if (!ids.length) return;
    const missing = await this.uploads.missing(caller.spaceId, ids);
    if (missing.length) throw problem("image.unknown_upload", `Unknown: ${missing.join(", ")}.`);
  }

  // --- the person's side --------------------------------------------------------------------------

  async reply(caller: Caller, askId: string, raw: unknown, read?: Promise<VersionedAsk | undefined>): Promise<Ask> {
    if (caller.tokenKind !== "person") throw problem("auth.person_required");
    const reply = parseShape(schemas.Reply, raw, "body.invalid");
    assertOk(checkReplySize(reply));
    let stored = await this.load(caller, askId, read ?? this.read(askId));
    // Decided on the copy this relay held, when the read began on one (a notice may have let it go
    // since): a copy another replica moved on from refuses the reply (not its turn, or its commit's
    // version moved), and the reply is then decided once more on the ask as the store holds it, as
    // it would have been without the copy.
    if (this.recent?.isCopy(stored)) {
      try {
        return await this.replyOn(caller, stored, reply);
      } catch (e) {
        if (!(e instanceof LoopbackProblem && MOVED_ON.has(e.code))) throw e;
        this.recent.forget(askId);
        stored = await this.load(caller, askId);
      }
    }
    return this.replyOn(caller, stored, reply);
  }

  private replyOn(caller: Caller, stored: VersionedAsk, reply: Reply): Promise<Ask> {
    assertOk(checkReply(stored.ask, reply));
    return this.commit(caller, stored, applyReply(stored.ask, reply, caller.person, this.clock.now()));
  }

  /**
   * Sends a change of the ask to the store from the place `pending` takes for it among the ask's
   * changes. The place is let go unless the write answers `stored`: refused, failed, or not known to
   * be stored, the change is not shown from here.
   */
  private async inPlace<T extends InsertOutcome | AppendOutcome>(askId: string, stored: T, write: (change: PendingChange) => Promise<T>): Promise<{ outcome: T; change: PendingChange }> {
    const change = this.feed.pending(askId);
    let outcome: T | undefined;
    try {
      outcome = await write(change);
      return { outcome, change };
    } finally {
      if (outcome !== stored) change.dropped();
    }
  }

  /**
   * Stores a change decided on `before`'s version; the feed tells the space and wakes whoever follows
   * the ask. A write to the same ask that committed first, on this relay or another, wins: this one
   * is refused as not its turn, and nothing of it is stored.
   */
  private async commit(caller: Caller, before: VersionedAsk, after: Ask): Promise<Ask> {
    // A reply a call here waits for is recorded as handed over with the reply itself: one durable
    // transaction instead of two, before the call's result is written.
    const replies = replyCount(after);
    const handedOverAt = replies > replyCount(before.ask) && this.waiting.takenHere(after.id) ? this.clock.now() : undefined;
    const delivered = handedOverAt === undefined ? { delivered: before.delivered, deliveredAt: before.deliveredAt } : { delivered: replies, deliveredAt: handedOverAt };
    const left = { spaceId: before.spaceId, ask: after, ...delivered, version: before.version + 1 };
    // Whoever follows the ask is told the moment the turn is stored (a call that takes its reply
    // sends its result then), not after the promise jobs that bring the commit back here.
    let shown!: Ask;
    const { outcome: appended, change } = await this.inPlace(after.id, "appended", () => this.store.append(before, after, handedOverAt, () => (shown = this.feed.stored(after, left))));
    if (appended === "not_your_turn") {
      this.recent?.forget(before.ask.id);
      // Said as the ask now is: closed by the write that won, or moved on to another turn.
      const now = await this.store.get(before.ask.id);
      if (now?.ask.status === "closed") throw problem("ask.closed");
      throw problem("ask.not_your_turn", "The ask changed meanwhile; reload it.");
    }
    this.recent?.keep(left);
    const handedOver = handedOverAt !== undefined;
    this.feed.committed(caller.spaceId, before, shown, change, handedOver);
    // A reply a call here takes goes to its agent first; the inboxes' frames and the writer's own
    // answer follow it (an inbox drops a sent draft whenever its 200 comes: extension/src/reply/draft.svelte.ts).
    if (handedOver) await afterThisTurn();
    return shown;
  }
}
