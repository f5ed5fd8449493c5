// The one place asks are opened, answered and waited on. REST, the event socket and MCP are thin
// adapters over this class; it never sees a framework, a request or a socket.
import * as v from "valibot";
import type {
  Ask,
  AskPage,
  Block,
  BriefingAnswerInput,
  BriefingInput,
  FollowUpInput,
  QuestionInput,
  Reply,
  ReviewInput,
  Snapshot,
  ToolReply,
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
  checkSize,
  latestReply,
  openAsk,
  replyCount,
} from "@loopback/shared/ask-rules/index";
import { problem, type LoopbackProblem } from "@loopback/shared/problems";
import type { Caller } from "../auth/gate.ts";
import type { Clock } from "../clock.ts";
import type { EventBus } from "../events/event-bus.ts";
import { hashSecret, newId } from "../ids.ts";
import type { AskStore, StoredAsk } from "../storage/ask-store.ts";
import type { UploadService } from "../uploads/upload-service.ts";
import { Followers, type Follower } from "./followers.ts";

export const RECENT_CLOSED = 50;
export const DEFAULT_PAGE = 20;

export type OpenInput =
  | { kind: "question"; input: QuestionInput }
  | { kind: "review"; input: ReviewInput }
  | { kind: "briefing"; input: BriefingInput };

const INPUT_SCHEMAS = {
  question: schemas.QuestionInput,
  review: schemas.ReviewInput,
  briefing: schemas.BriefingInput,
} as const;

export interface FollowOptions {
  /** Ends the wait early, as when the agent cancels or its connection drops. */
  signal?: AbortSignal;
  /** How long to wait before returning `pending`; 0 waits as long as the signal allows. */
  budgetMs: number;
  /** Called every `progressEveryMs` while waiting, for clients that reset their timeout on progress. */
  onProgress?: (waitedMs: number) => void;
  progressEveryMs?: number;
  /** A follow that picks an earlier wait up again may be handed a reply it was already given. */
  resume?: boolean;
}

/** Throws the first problem a rule found. */
function assertOk(p: LoopbackProblem | null | undefined): void {
  if (p) throw p;
}

/** Parses `value` with a contract schema, refusing with `code` and the first issue's path. */
export function parseShape<S extends v.GenericSchema>(schema: S, value: unknown, code: "input.invalid" | "body.invalid"): v.InferOutput<S> {
  const res = v.safeParse(schema, value);
  if (res.success) return res.output;
  const issue = res.issues[0];
  const path = v.getDotPath(issue);
  throw problem(code, `${path ? `At \`${path}\`: ` : ""}${issue.message}.`);
}

function imageIds(blocks: Block[] | undefined): string[] {
  return (blocks ?? []).flatMap((b) => (b.type === "image" ? [b.uploadId] : []));
}

export class AskService {
  readonly followers = new Followers();

  constructor(
    private store: AskStore,
    private uploads: UploadService,
    private bus: EventBus,
    private clock: Clock,
  ) {}

  // --- reading ------------------------------------------------------------------------------------

  private withWaiting(ask: Ask): Ask {
    return { ...ask, waiting: this.followers.isFollowed(ask.id) };
  }

  private load(caller: Caller, askId: string): StoredAsk {
    const stored = this.store.get(askId);
    // Another space's ask is as absent as one that never existed.
    if (!stored || stored.spaceId !== caller.spaceId) throw problem("ask.not_found");
    return stored;
  }

  get(caller: Caller, askId: string): Ask {
    return this.withWaiting(this.load(caller, askId).ask);
  }

  snapshot(caller: Caller): Snapshot {
    return {
      open: this.store.listOpen(caller.spaceId).map((a) => this.withWaiting(a)),
      recent: this.store.listClosed(caller.spaceId, RECENT_CLOSED).map((a) => this.withWaiting(a)),
    };
  }

  history(caller: Caller, limit = DEFAULT_PAGE, before?: string): AskPage {
    // One more than asked tells whether there is a next page without a count query.
    const rows = this.store.listClosed(caller.spaceId, limit + 1, before);
    const items = rows.slice(0, limit);
    const page: AskPage = { items };
    if (rows.length > limit) page.nextBefore = items.at(-1)!.closedAt;
    return page;
  }

  // --- the agent's side ---------------------------------------------------------------------------

  open(caller: Caller, what: OpenInput, client?: string): Ask {
    const input = parseShape(INPUT_SCHEMAS[what.kind], what.input, "input.invalid");
    assertOk(checkOpen(what.kind, input as any));
    const blocks =
      what.kind === "review"
        ? (input as ReviewInput).content
        : what.kind === "briefing"
          ? (input as BriefingInput).sections.flatMap((s) => s.points.flatMap((p) => p.content ?? []))
          : [];
    this.assertImagesExist(caller, blocks);
    if (what.kind === "review" && (input as ReviewInput).revises) {
      const revised = this.store.get((input as ReviewInput).revises!);
      if (!revised || revised.spaceId !== caller.spaceId || revised.ask.kind !== "review") throw problem("ask.revises_unknown");
    }
    // An agent whose call was cut off (a crash, a client timeout) asks again with the same input: it
    // picks up the same ask, and any reply given meanwhile, instead of putting the question twice.
    const fingerprint = hashSecret(`${caller.person.id}\n${what.kind}\n${JSON.stringify(input)}`);
    const resumable = this.store.findResumable(caller.spaceId, fingerprint);
    if (resumable) return this.withWaiting(resumable.ask);
    const ask = openAsk(what.kind, input as any, {
      id: newId("ask"),
      at: this.clock.now(),
      client,
      raisedBy: caller.person,
    });
    this.store.insert(caller.spaceId, ask, fingerprint);
    this.bus.publish(caller.spaceId, "ask.opened", this.withWaiting(ask));
    return ask;
  }

  answerBriefing(caller: Caller, raw: BriefingAnswerInput): Ask {
    const input = parseShape(schemas.BriefingAnswerInput, raw, "input.invalid");
    const stored = this.load(caller, input.askId);
    assertOk(checkBriefingAnswer(stored.ask, input));
    this.assertImagesExist(caller, input.answers.flatMap((a) => [...(a.content ?? []), ...(a.points ?? []).flatMap((p) => p.content ?? [])]));
    return this.commit(caller, stored.ask, applyBriefingAnswer(stored.ask, input, this.clock.now()));
  }

  answerFollowUp(caller: Caller, raw: FollowUpInput): Ask {
    const input = parseShape(schemas.FollowUpInput, raw, "input.invalid");
    const stored = this.load(caller, input.askId);
    assertOk(checkFollowUpAnswer(stored.ask, input));
    this.assertImagesExist(caller, input.content);
    return this.commit(caller, stored.ask, applyFollowUpAnswer(stored.ask, input, this.clock.now()));
  }

  private assertImagesExist(caller: Caller, blocks: Block[] | undefined): void {
    const missing = this.uploads.missing(caller.spaceId, imageIds(blocks));
    if (missing.length) throw problem("image.unknown_upload", `Unknown: ${missing.join(", ")}.`);
  }

  /**
   * Waits for the person's next reply on an ask and hands it over once. Returns `pending` when the
   * budget runs out first; the reply then waits, stored, for the next follow.
   */
  async follow(caller: Caller, askId: string, opts: FollowOptions): Promise<ToolReply> {
    const from = this.handedBefore(caller, askId, opts.resume ?? false);
    const started = Date.now();
    let wake!: () => void;
    let changed = new Promise<void>((r) => (wake = r));
    let stopping = this.#stopping;
    const follower: Follower = {
      wake: () => wake(),
      release: () => {
        stopping = true;
        wake();
      },
    };
    if (this.followers.add(askId, follower)) this.announce(askId);
    const timers: ReturnType<typeof setTimeout>[] = [];
    const onAbort = () => wake();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      if (opts.budgetMs > 0) timers.push(setTimeout(() => wake(), opts.budgetMs));
      if (opts.onProgress && opts.progressEveryMs) {
        const every = opts.progressEveryMs;
        timers.push(setInterval(() => opts.onProgress!(Date.now() - started), every));
      }
      for (;;) {
        const reply = this.take(askId, from);
        if (reply) return { askId, reply };
        if (opts.signal?.aborted) throw opts.signal.reason ?? new Error("aborted");
        const waited = Date.now() - started;
        if (stopping || (opts.budgetMs > 0 && waited >= opts.budgetMs)) return this.pending(askId, waited, stopping);
        await changed;
        changed = new Promise<void>((r) => (wake = r));
      }
    } finally {
      for (const t of timers) clearTimeout(t);
      opts.signal?.removeEventListener("abort", onAbort);
      // Told after the result is on its way: the agent should not wait for the inbox to hear it.
      if (this.followers.remove(askId, follower)) setImmediate(() => this.announce(askId));
    }
  }

  /**
   * How many of the person's turns a new follower counts as already handed over: those handed to
   * earlier calls. With `resume`, an ask that is no longer the person's move counts one fewer, so its
   * latest reply is handed over again: the agent evidently lost the result that carried it.
   */
  handedBefore(caller: Caller, askId: string, resume: boolean): number {
    const stored = this.load(caller, askId);
    const replies = replyCount(stored.ask);
    if (resume && stored.ask.status !== "awaiting_human" && replies > 0) return Math.min(stored.delivered, replies - 1);
    return stored.delivered;
  }

  /**
   * The person's newest reply if they replied after the first `from` turns, recorded as handed over.
   * Every follower waiting at the time gets it: two calls on one ask (two agents asking the same, or
   * a call and its retry) both hear the answer, and neither is cut short for the other.
   */
  private take(askId: string, from: number): Reply | undefined {
    const stored = this.store.get(askId);
    if (!stored) return undefined;
    const replies = replyCount(stored.ask);
    if (replies <= from) return undefined;
    // Hand over the newest: an older one was overtaken (a briefing dismissed on the agent's turn).
    if (replies > stored.delivered) this.store.claimDelivery(askId, stored.delivered, replies);
    return latestReply(stored.ask)!.reply;
  }

  /**
   * A look for the reply without waiting, for an agent that follows an ask by polling (an MCP task).
   * Each poll keeps the ask `waiting` for `leaseMs`; an agent that stops polling stops waiting.
   */
  poll(caller: Caller, askId: string, opts: { from: number; leaseMs: number }): ToolReply | undefined {
    this.load(caller, askId);
    const reply = this.take(askId, opts.from);
    if (reply) {
      this.endLease(askId);
      return { askId, reply };
    }
    this.lease(askId, opts.leaseMs);
    return undefined;
  }

  #leases = new Map<string, { follower: Follower; timer: ReturnType<typeof setTimeout> }>();

  private lease(askId: string, ms: number): void {
    const held = this.#leases.get(askId);
    if (held) {
      held.timer.refresh();
      return;
    }
    const follower: Follower = { wake: () => {}, release: () => {} };
    const timer = setTimeout(() => this.endLease(askId), ms);
    timer.unref?.();
    this.#leases.set(askId, { follower, timer });
    if (this.followers.add(askId, follower)) this.announce(askId);
  }

  endLease(askId: string): void {
    const held = this.#leases.get(askId);
    if (!held) return;
    clearTimeout(held.timer);
    this.#leases.delete(askId);
    if (this.followers.remove(askId, held.follower)) this.announce(askId);
  }

  private pending(askId: string, waitedMs: number, stopping: boolean): ToolReply {
    const waitedSeconds = Math.round(waitedMs / 1000);
    const message = stopping
      ? `The relay is restarting; the person has not replied yet. Nothing is lost: call wait_for_reply with askId "${askId}" in a few seconds to keep waiting for their reply.`
      : `The person has not replied yet (waited ${waitedSeconds} s). Nothing is lost: call wait_for_reply with askId "${askId}" now to keep waiting for their reply.`;
    return { askId, pending: { waitedSeconds, message } };
  }

  #stopping = false;

  /**
   * Ends every wait with `pending`, and any that starts from now on, for a relay about to stop: an
   * agent told to come back is better off than one left on a call that will never answer.
   */
  releaseAll(): void {
    this.#stopping = true;
    for (const askId of [...this.#leases.keys()]) this.endLease(askId);
    this.followers.releaseAll();
  }

  private announce(askId: string): void {
    const stored = this.store.get(askId);
    if (stored) this.bus.publish(stored.spaceId, "ask.updated", this.withWaiting(stored.ask));
  }

  // --- the person's side --------------------------------------------------------------------------

  reply(caller: Caller, askId: string, raw: unknown): Ask {
    if (caller.tokenKind !== "person") throw problem("auth.person_required");
    const reply = parseShape(schemas.Reply, raw, "body.invalid");
    assertOk(checkSize(reply));
    const stored = this.load(caller, askId);
    assertOk(checkReply(stored.ask, reply));
    return this.commit(caller, stored.ask, applyReply(stored.ask, reply, caller.person, this.clock.now()));
  }

  /** Stores a change decided on `before`, tells the space, wakes whoever follows the ask. */
  private commit(caller: Caller, before: Ask, after: Ask): Ask {
    // A concurrent write to the same ask wins the race; this one is refused as not its turn.
    if (!this.store.append(before, after)) throw problem("ask.not_your_turn", "The ask changed meanwhile; reload it.");
    const shown = this.withWaiting(after);
    this.bus.publish(caller.spaceId, "ask.updated", shown);
    this.followers.wake(after.id);
    return shown;
  }

  /** How many calls and task leases follow asks right now (a stopping relay waits for them to end). */
  get waitingCount(): number {
    return this.followers.count;
  }
}
