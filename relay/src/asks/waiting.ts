// Waiting for the person: which calls and task leases follow which ask, handing each reply over once.
// The ask service owns the turns; this class owns who waits for them, in memory. The records that
// let a call or task outlive a restart are the MCP side's (mcp/blocking-call.ts, mcp/task-store.ts).
import type { Ask, Reply, ToolReply } from "@loopback/shared/generated/types";
import { latestReply, replyCount } from "@loopback/shared/ask-rules/index";
import { problem } from "@loopback/shared/problems";
import type { Caller } from "../auth/gate.ts";
import { askSeenBy } from "../auth/who-sees-an-ask.ts";
import type { Clock, Timer } from "../clock.ts";
import type { AskRecords, VersionedAsk } from "../storage/store.ts";
import { Followers, type Follower } from "./followers.ts";
import { afterThisTurn } from "./after-this-turn.ts";
import { isDatabaseAway } from "../storage/database-reach.ts";

export interface FollowOptions {
  /** Ends the wait early, as when the agent cancels or its connection drops. */
  signal?: AbortSignal;
  /** How long to wait before returning `pending`; 0 waits as long as the signal allows. */
  budgetMs: number;
  /** Called every `progressEveryMs` while waiting, for clients that reset their timeout on progress. */
  onProgress?: (waitedMs: number) => void;
  progressEveryMs?: number;
  /** The person's turns already handed over before this wait began: it returns with a later one. */
  from: number;
  /** The ask was opened for this wait and already announced as waiting: no second frame for it. */
  opened?: boolean;
  /** Lets go of the hold that kept the ask `waiting` until now; called once this wait follows it. */
  release?: () => void;
  /** The token's place this wait holds (from `enter`), given back when it ends; taken here when not given. */
  room?: () => void;
  /**
   * Hears the reply in the turn the change that added it committed, when that change also recorded
   * it as handed over (a call here takes it): the caller can send its result then, before the rest of
   * that turn (the wait's own promise jobs, the frames, the person's answer). `follow` still returns it.
   */
  handOver?: (reply: ToolReply) => void;
}

export interface WaitingLimits {
  /** Calls one token may have waiting at once on this relay. */
  maxPerToken: number;
}

/** Where a flip of an ask's `waiting` is told, to be shown to the inboxes (asks/ask-feed.ts). */
export interface Flips {
  flipped(askId: string): void;
}

/** What `waiting` knows of other replicas' followers. */
export interface Elsewhere {
  has(askId: string): boolean;
  mine(askId: string, following: boolean): void;
}

export class Waiting {
  readonly followers: Followers;
  #elsewhere?: Elsewhere;
  #perToken = new Map<string, number>();
  /** Calls waiting here, by the name of the MCP client that opened their ask. */
  readonly byClient = new Map<string, number>();
  /** Hears how long each reply handed to an agent had waited for it since the person sent it (ms), once it is on its way. */
  onHandOver?: (ms: number) => void;
  #taskTurns = new Map<string, Promise<void>>();
  #leases = new Map<string, { follower: Follower; timer: Timer }>();
  #stopping = false;

  constructor(
    private store: AskRecords,
    private flips: Flips,
    private clock: Clock,
    private limits: WaitingLimits,
  ) {
    this.followers = new Followers((askId, following) => this.#elsewhere?.mine(askId, following));
  }

  /** With replicas: followers on the others count too, and this one's flips are told to them. */
  shareWith(elsewhere: Elsewhere): void {
    this.#elsewhere = elsewhere;
  }

  /** Whether a call or task follows the ask, on this replica or another. */
  isFollowed(askId: string): boolean {
    return this.followers.isFollowed(askId) || (this.#elsewhere?.has(askId) ?? false);
  }

  withWaiting(ask: Ask): Ask {
    return { ...ask, waiting: this.isFollowed(ask.id) };
  }

  private load(caller: Caller, askId: string): Promise<VersionedAsk> {
    return askSeenBy(this.store, caller, askId);
  }

  /**
   * How many of the person's turns a new follower counts as already handed over: those handed to
   * earlier calls. With `resume`, an ask that is no longer the person's move counts one fewer, so its
   * latest reply is handed over again: the agent evidently lost the result that carried it.
   */
  async from(caller: Caller, askId: string, resume: boolean): Promise<number> {
    const stored = await this.load(caller, askId);
    const replies = replyCount(stored.ask);
    if (resume && stored.ask.status !== "awaiting_human" && replies > 0) return Math.min(stored.delivered, replies - 1);
    return stored.delivered;
  }

  /**
   * Waits for the person's next reply after `from` and hands it over once. Returns `pending` when the
   * budget runs out first; the reply then waits, stored, for the next follow.
   */
  async follow(caller: Caller, askId: string, opts: FollowOptions): Promise<ToolReply> {
    const leave = opts.room ?? this.enter(caller);
    let client: string;
    try {
      client = clientName((await this.load(caller, askId)).ask.client);
    } catch (e) {
      leave();
      throw e;
    }
    this.byClient.set(client, (this.byClient.get(client) ?? 0) + 1);
    const started = this.clock.monoMs();
    let wake!: () => void;
    let changed = new Promise<void>((r) => (wake = r));
    let stopping = this.#stopping;
    /** The ask as a change made here, or a read of every followed ask, left it: the next look starts from there, not the store. */
    let known: VersionedAsk | undefined;
    /** Woken since the last look began. */
    let woken = false;
    /** The reply `handOver` heard. */
    let handed: ToolReply | undefined;
    const follower: Follower = {
      wake: (ask) => {
        // A wake without the ask (a change heard from elsewhere) asks for a fresh read, and no ask
        // read earlier may stand in for it; of two asks given, the later version stands.
        if (!woken || (known && (!ask || ask.version > known.version))) known = ask;
        woken = true;
        // Only from the ask that stands: an older read given late is left to the look below.
        if (opts.handOver && ask && known === ask && !handed && !stopping && !opts.signal?.aborted) {
          const reply = this.handedOverIn(ask, opts.from);
          if (reply) opts.handOver((handed = { askId, reply }));
        }
        wake();
      },
      release: () => {
        stopping = true;
        wake();
      },
      takes: () => !stopping && !opts.signal?.aborted,
    };
    const timers: Timer[] = [];
    const onAbort = () => wake();
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      if (this.followers.add(askId, follower) && !opts.opened) this.announce(askId);
      opts.release?.();
      if (opts.budgetMs > 0) timers.push(this.clock.after(opts.budgetMs, () => wake()));
      if (opts.onProgress && opts.progressEveryMs) {
        const every = opts.progressEveryMs;
        timers.push(this.clock.every(every, () => opts.onProgress!(this.clock.monoMs() - started)));
      }
      let retryMs = 0;
      for (;;) {
        if (handed) return handed;
        // Aborted first: a reply taken for a call whose result will be thrown away would count as
        // handed over while nobody read it.
        if (opts.signal?.aborted) throw opts.signal.reason ?? new Error("aborted");
        let reply: Reply | undefined;
        try {
          const ask = known;
          known = undefined;
          woken = false;
          reply = await this.take(askId, opts.from, opts.signal, ask);
          retryMs = 0;
        } catch (e) {
          if (!isDatabaseAway(e)) throw e;
          // The database blinked: the wait goes on, looking again a little later (and at once when
          // the relay hears the database is back), until its reply or its budget.
          retryMs = Math.min(retryMs ? retryMs * 2 : RETRY_FIRST_MS, RETRY_MAX_MS);
          timers.push(this.clock.after(retryMs, () => wake()));
        }
        if (opts.signal?.aborted) throw opts.signal.reason ?? new Error("aborted");
        // Heard meanwhile, it is the reply already written.
        if (handed) return handed;
        if (reply) return { askId, reply };
        const waited = this.clock.monoMs() - started;
        if (stopping || (opts.budgetMs > 0 && waited >= opts.budgetMs)) return pending(askId, waited, stopping);
        await changed;
        changed = new Promise<void>((r) => (wake = r));
      }
    } finally {
      opts.release?.();
      for (const t of timers) t.cancel();
      opts.signal?.removeEventListener("abort", onAbort);
      leave();
      const left = this.byClient.get(client)! - 1;
      if (left > 0) this.byClient.set(client, left);
      else this.byClient.delete(client);
      // Told after the result is on its way: the agent should not wait for the inbox to hear it.
      if (this.followers.remove(askId, follower)) setImmediate(() => this.announce(askId));
    }
  }

  /**
   * Keeps an ask `waiting` for a call about to follow it; the returned function lets go (once). Only
   * letting go of the last follower announces the flip.
   */
  hold(askId: string): () => void {
    const follower: Follower = { wake: () => {}, release: () => {} };
    this.followers.add(askId, follower);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      if (this.followers.remove(askId, follower)) this.announce(askId);
    };
  }

  /**
   * Takes one of a token's places for waiting calls, or refuses the call over its token's limit
   * before it opens anything. The returned function gives the place back (once).
   */
  enter(caller: Caller, besides = 0): () => void {
    const held = this.#perToken.get(caller.tokenHash) ?? 0;
    if (held + besides >= this.limits.maxPerToken) throw problem("calls.too_many");
    this.#perToken.set(caller.tokenHash, held + 1);
    let inside = true;
    return () => {
      if (!inside) return;
      inside = false;
      const left = (this.#perToken.get(caller.tokenHash) ?? 1) - 1;
      if (left > 0) this.#perToken.set(caller.tokenHash, left);
      else this.#perToken.delete(caller.tokenHash);
    };
  }

  /**
   * Opens a task-augmented call's task (`open`) if its token has room: its tasks still waiting on an
   * open ask (on every replica, as `working` counts them) count with its calls waiting here, so tasks do not slip past the
   * limit that holds calls. A token's tasks open one after another on this relay, so each counts
   * those opened before it.
   */
  asTask<T>(caller: Caller, working: () => Promise<number>, open: () => Promise<T>): Promise<T> {
    const id = caller.tokenId;
    const turn = (this.#taskTurns.get(id) ?? Promise.resolve()).then(async () => {
      const leave = this.enter(caller, await working());
      try {
        return await open();
      } finally {
        leave();
      }
    });
    const tail = turn.then(
      () => {},
      () => {},
    );
    this.#taskTurns.set(id, tail);
    void tail.then(() => {
      if (this.#taskTurns.get(id) === tail) this.#taskTurns.delete(id);
    });
    return turn;
  }

  /**
   * The person's newest reply if they replied after the first `from` turns, recorded as handed over.
   * Every follower waiting at the time gets it: two calls on one ask (two agents asking the same, or
   * a call and its retry) both hear the answer, and neither is cut short for the other.
   */
  private async take(askId: string, from: number, signal?: AbortSignal, known?: VersionedAsk): Promise<Reply | undefined> {
    const stored = known ?? (await this.store.get(askId));
    // Cancelled while the ask was read: nothing is recorded as handed over.
    if (!stored || signal?.aborted) return undefined;
    const replies = replyCount(stored.ask);
    if (replies <= from) return undefined;
    // Hand over the newest: an older one was overtaken (a briefing dismissed on the agent's turn).
    // Lost to another follower's claim, it is still this follower's to return (see above). Recorded
    // before the result is written: the agent's next call (answer_follow_up, wait_for_reply, on any
    // replica) starts from what was handed over, and must not be handed this reply again.
    if (replies > stored.delivered) await this.store.claimDelivery(askId, stored.delivered, replies, this.clock.now());
    return this.handingOver(stored.ask);
  }

  /**
   * The reply to hand over from the ask as a change here left it, when no claim is left to record
   * (the change recorded it, or an earlier follower did): what `take` returns, without its turn.
   */
  private handedOverIn(stored: VersionedAsk, from: number): Reply | undefined {
    const replies = replyCount(stored.ask);
    return replies > from && replies <= stored.delivered ? this.handingOver(stored.ask) : undefined;
  }

  /** The ask's newest reply, on its way to an agent. */
  private handingOver(ask: Ask): Reply {
    const latest = latestReply(ask)!;
    // Timed now, counted once the result is on its way: after a pause, the histogram's first
    // observation took ~0.06 ms the agent would otherwise wait for (marks, 100 rounds).
    const onHandOver = this.onHandOver;
    if (onHandOver) {
      const ms = this.clock.wallMs() - Date.parse(latest.at);
      void afterThisTurn().then(() => onHandOver(ms));
    }
    return latest.reply;
  }

  /**
   * A look for the reply without waiting, for an agent that follows an ask by polling (an MCP task).
   * Each poll keeps the ask `waiting` for `leaseMs`; an agent that stops polling stops waiting.
   */
  async poll(caller: Caller, askId: string, opts: { from: number; leaseMs: number; opened?: boolean }): Promise<ToolReply | undefined> {
    await this.load(caller, askId);
    const reply = await this.take(askId, opts.from);
    if (reply) {
      this.endLease(askId);
      return { askId, reply };
    }
    this.lease(askId, opts.leaseMs, opts.opened ?? false);
    return undefined;
  }

  private lease(askId: string, ms: number, opened: boolean): void {
    const held = this.#leases.get(askId);
    if (held) {
      held.timer.refresh();
      return;
    }
    const follower: Follower = { wake: () => {}, release: () => {} };
    const timer = this.clock.after(ms, () => this.endLease(askId));
    this.#leases.set(askId, { follower, timer });
    if (this.followers.add(askId, follower) && !opened) this.announce(askId);
  }

  endLease(askId: string): void {
    const held = this.#leases.get(askId);
    if (!held) return;
    held.timer.cancel();
    this.#leases.delete(askId);
    if (this.followers.remove(askId, held.follower)) this.announce(askId);
  }

  /** The ask changed (here, to `changed`, when given): every follower looks for its reply. */
  wake(askId: string, changed?: VersionedAsk): void {
    this.followers.wake(askId, changed);
  }

  /**
   * Whether a call here will take the person's next reply to the ask: the change that adds it then
   * records it as handed over in its own transaction, and the call has nothing left to write.
   */
  takenHere(askId: string): boolean {
    return this.followers.taken(askId);
  }

  /** Every follower looks for its reply: changes from other replicas may have been missed. */
  wakeAll(): void {
    // In one read of every followed ask, not a read per wait: after an outage every relay does this
    // at once, and a read per wait queued hundreds of reads behind a few fresh connections.
    const ids = this.followers.askIds();
    if (!ids.length) return;
    this.store.listByIds(ids).then(
      (asks) => {
        const byId = new Map(asks.map((a) => [a.ask.id, a]));
        for (const id of ids) this.followers.wake(id, byId.get(id));
      },
      // Not read (the database is away again): each wait looks for itself, and retries as it does.
      () => this.followers.wakeAll(),
    );
  }

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
    this.flips.flipped(askId);
  }

  /** How many calls and task leases follow asks right now (a stopping relay waits for them to end). */
  get count(): number {
    return this.followers.count;
  }
}

/** A wait that could not read its ask looks again after this long, doubling up to `RETRY_MAX_MS`. */
const RETRY_FIRST_MS = 50;
const RETRY_MAX_MS = 1_000;
/** `claude-code` of `claude-code 2.1.0`: versions would make a new series with every release. */
const clientName = (client: string | undefined) => client?.replace(/ \S+$/, "") || "unknown";

function pending(askId: string, waitedMs: number, stopping: boolean): ToolReply {
  const waitedSeconds = Math.round(waitedMs / 1000);
  const message = stopping
    ? `The relay is restarting; the person has not replied yet. Nothing is lost: call wait_for_reply with askId "${askId}" in a few seconds to keep waiting for their reply.`
    : `The person has not replied yet (waited ${waitedSeconds} s). Nothing is lost: call wait_for_reply with askId "${askId}" now to keep waiting for their reply.`;
  return { askId, pending: { waitedSeconds, message } };
}
