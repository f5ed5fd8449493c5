// Every change to an ask, in the order it changed, to whoever must hear it: this relay's inboxes (as
// frames on the event bus) and the calls and tasks that follow the ask here (woken to look for their
// reply). A change is a turn committed here, a flip of `waiting` (here or on another replica), or,
// with replicas, a commit another replica made, heard as a PostgreSQL notification. Every frame names
// the ask's version, and the feed remembers the newest it showed of each ask: an older one is dropped,
// and a `waiting` flip is shown at the version already shown, so an ask's frames go out in the order
// it changed, whether a change was made here or heard from another replica (whose notice may arrive
// after this replica read, or made, a later version, or before the answer of this replica's own
// commit of an earlier one). When notices may have been missed (the listener reconnected, the
// database came back) everything is read again.
import type { Ask, AskEvent } from "@loopback/shared/generated/types";
import type { AskEventBus } from "./ask-event-bus.ts";
import type { Waiting } from "./waiting.ts";
import type { FollowersElsewhere } from "./followers-elsewhere.ts";
import { askAsOf, stateOf, type AskState } from "../storage/ask-as-of.ts";
import type { AskChange, AskRecords, Store, VersionedAsk } from "../storage/store.ts";
import { isDatabaseAway, type DatabaseReach } from "../storage/database-reach.ts";
import { log } from "../logging/log.ts";
import type { Clock, Timer } from "../clock.ts";
import { LRUCache } from "lru-cache";
import type { RecentAsks } from "./recent-asks.ts";
import { afterThisTurn } from "./after-this-turn.ts";

/** Shows a change now, or once this turn's promise jobs have run (`later`). */
async function showing(show: () => void, later: boolean): Promise<void> {
  if (later) await afterThisTurn();
  show();
}

/** Asks whose newest shown version is remembered: the most recently shown. */
const REMEMBERED = 100_000;

/**
 * With replicas, every wait reads its ask again this often: a safety net for a notification lost
 * without its listener noticing (a reconnection is noticed, and read again at once).
 */
export const SAFETY_LOOK_MS = 15_000;

/** What the feed uses of who follows asks here: whether one is followed, and waking its followers. */
export type FeedFollowers = Pick<Waiting, "withWaiting" | "wake" | "wakeAll">;

/** Where other replicas' changes are heard: the store's channel, and whether its database is back. */
export interface ChangeSource {
  listen: NonNullable<Store["listen"]>;
  reach?: Pick<DatabaseReach, "onBack" | "reachable">;
}

/**
 * A change this relay is committing: once stored, `shown` shows it in its place among the ask's
 * changes (`later`: once this turn's promise jobs have run, see `committed`); `dropped` when nothing
 * was stored.
 */
export interface PendingChange {
  shown(show: () => void, later?: boolean): void;
  dropped(): void;
}

export class AskFeed {
  /** The newest version shown of each ask shown lately: the least recently shown is let go first. */
  #shown = new LRUCache<string, AskState>({ max: REMEMBERED });
  /** Asks read to be shown, one after another per ask in the order their changes were heard or made. */
  #reads = new Map<string, Promise<void>>();
  #elsewhere?: FollowersElsewhere;
  #listening?: { close(): Promise<void> };
  /** Whether other replicas' changes are heard here: a change of this relay's may then wait for theirs, or they for it. */
  #hearsOthers = false;
  #unlistenBack?: () => void;
  #safetyNet?: Timer;

  constructor(
    /** Where asks are read when a change is heard without them. */
    private asks: Pick<AskRecords, "get">,
    private bus: AskEventBus,
    private waiting: FeedFollowers,
    /** Times the safety look. */
    private clock: Pick<Clock, "every">,
    /** The copies of asks a reply starts from (PostgreSQL): one another replica moved on from is let go. */
    private recent?: Pick<RecentAsks, "heard" | "clear">,
  ) {}

  // --- changes made here --------------------------------------------------------------------------

  /**
   * Called before a change to the ask is sent to the store. With other replicas, the change takes its
   * place among the ask's changes now: an earlier change still being read (another replica's, heard
   * before this one was made) goes out first, and a later one heard before the store answered (made
   * on top of this one, its notice quicker than the answer) waits for this one. Either way round, the
   * older shown after the newer would be dropped, and an inbox would miss a turn or the ask's opening.
   */
  pending(askId: string): PendingChange {
    if (!this.#hearsOthers) {
      // Only this relay's own reads of the ask (a `waiting` flip) can be under way: they go out first.
      // A change shown later holds the ask's place meanwhile, so none made after it goes out before it.
      return {
        shown: (show, later = false) => (later || this.#reads.has(askId) ? this.#then(askId, () => showing(show, later)) : show()),
        dropped: () => {},
      };
    }
    const { promise, resolve } = Promise.withResolvers<{ show: () => void; later: boolean } | undefined>();
    this.#then(askId, async () => {
      const change = await promise;
      if (change) await showing(change.show, change.later);
    });
    return { shown: (show, later = false) => resolve({ show, later }), dropped: () => resolve(undefined) };
  }

  /**
   * A new ask, the moment the store has it (the store calls this in the commit's turn), in its place
   * taken by `pending`, for a call that follows it at once: shown as waiting from its first frame.
   */
  opened(spaceId: string, ask: Ask, change: PendingChange): void {
    change.shown(() => this.#show(spaceId, "ask.opened", { ...ask, waiting: true }, 0));
  }

  /**
   * A turn of this relay's, the moment the store has it (the store calls this in the commit's turn):
   * whoever follows the ask looks for its reply in `left` (the ask as the change left it) without
   * reading it again, so a call that takes the reply sends its result now. Returns the ask as it is
   * to be shown: as it stood at the commit, its followers still on it.
   */
  stored(after: Ask, left: VersionedAsk): Ask {
    const shown = this.waiting.withWaiting(after);
    this.waiting.wake(after.id, left);
    return shown;
  }

  /**
   * A turn committed here on `before`'s version (`shown`, from `stored`), in its place taken by
   * `pending`: shown after that version (whose notice, made elsewhere, may still be coming, and would
   * be dropped once this one is shown).
   *
   * `handedOver`: a call here took the reply this change adds. Its result is what an agent is blocked
   * on, so it goes out first: the frames wait until this turn's promise jobs have run.
   */
  committed(spaceId: string, before: VersionedAsk, shown: Ask, change: PendingChange, handedOver: boolean): void {
    change.shown(() => {
      if ((this.#shown.peek(before.ask.id)?.version ?? -1) < before.version) {
        this.#show(spaceId, before.version === 0 ? "ask.opened" : "ask.updated", this.waiting.withWaiting(before.ask), before.version);
      }
      this.#show(spaceId, "ask.updated", shown, before.version + 1);
    }, handedOver);
  }

  /** Whether a call or task follows the ask changed, here or on another replica: it is shown again. */
  flipped(askId: string): void {
    this.#read(askId);
  }

  // --- changes made on other replicas -------------------------------------------------------------

  /**
   * Hears other replicas' changes from `source`; with `elsewhere`, also who follows what there, and
   * every wait reads its ask again now and then in case a notice was lost unnoticed.
   */
  async listen(source: ChangeSource, elsewhere?: FollowersElsewhere): Promise<void> {
    this.#hearsOthers = true;
    if (elsewhere) {
      this.#elsewhere = elsewhere;
      await elsewhere.start();
    }
    let listening = false;
    this.#listening = await source.listen(
      (change) => this.#heard(change),
      // Called again after every reconnection of the listener: what it missed meanwhile is read again,
      // unless the database is still away for this relay's other connections: everything is read
      // again when it is back, and a read now would only be refused.
      () => {
        if (listening && (source.reach?.reachable ?? true)) {
          log("replicas").info("listening again for other replicas' changes: reading what was missed");
          this.resync();
        }
        listening = true;
      },
      elsewhere && ((change) => elsewhere.heard(change)),
    );
    this.#unlistenBack = source.reach?.onBack(() => this.resync());
    if (elsewhere) {
      this.#safetyNet = this.clock.every(SAFETY_LOOK_MS, () => this.waiting.wakeAll());
    }
  }

  /**
   * An ask changed on another replica: whoever follows it here looks for a reply, and this replica's
   * inboxes get the ask as the change left it.
   */
  #heard(change: AskChange): void {
    // A new ask is held waiting by the replica that opened it until its call follows it there (the
    // follow's own notice comes next): its first frame here says so too, as it does there.
    if (change.version === 0) this.#elsewhere?.heard({ askId: change.askId, replica: change.replica, following: true }, true);
    this.recent?.heard(change.askId, change.version);
    this.waiting.wake(change.askId);
    this.#read(change.askId, change);
  }

  /**
   * Changes may have been missed (the listener or the database was away): every wait reads its ask
   * again, every inbox gets its space afresh, and who follows what is read again. What was shown is
   * forgotten with it: a version remembered from before would have a `waiting` flip shown as that
   * older state (an ask closed meanwhile shown open again).
   */
  resync(): void {
    this.recent?.clear();
    this.waiting.wakeAll();
    this.#shown.clear();
    this.bus.resync();
    void this.#elsewhere?.reload().catch((e) => isDatabaseAway(e) || log("replicas").warn("could not read who follows what", { error: e }));
  }

  /** Once every change heard so far is shown (or could not be read). */
  async settled(): Promise<void> {
    while (this.#reads.size) await Promise.allSettled([...this.#reads.values()]);
  }

  /** Stops hearing other replicas, and lets the reads under way finish. */
  async close(): Promise<void> {
    this.#safetyNet?.cancel();
    this.#unlistenBack?.();
    await this.#listening?.close().catch(() => {});
    await this.#elsewhere?.stop();
    await this.settled();
  }

  // --- showing ------------------------------------------------------------------------------------

  /**
   * Reads an ask and shows it, after every earlier read of it: as `asOf` left it (read later, the ask
   * may hold later turns, whose own changes come next), or as it now is.
   */
  #read(askId: string, asOf?: AskChange): void {
    this.#then(askId, async () => {
      const stored = await this.asks.get(askId);
      if (!stored) return;
      if (asOf) this.#show(stored.spaceId, asOf.version === 0 ? "ask.opened" : "ask.updated", this.waiting.withWaiting(askAsOf(stored.ask, asOf)), asOf.version);
      else this.#showAgain(stored.spaceId, this.waiting.withWaiting(stored.ask), stored.version);
    });
  }

  /** Runs `work` on an ask after everything queued before it for the same ask. */
  #then(askId: string, work: () => Promise<void>): void {
    const previous = this.#reads.get(askId) ?? Promise.resolve();
    const next = previous
      .then(work)
      // With the database away the frame is lost here; the inboxes are sent their space afresh once it is back.
      .catch((e) => void (isDatabaseAway(e) || log("asks").warn("could not read ask {askId} to show its change", { askId, error: e })))
      .finally(() => {
        if (this.#reads.get(askId) === next) this.#reads.delete(askId);
      });
    this.#reads.set(askId, next);
  }

  /** Shows `ask` at `version`, unless a later version of it was shown already. */
  #show(spaceId: string, type: AskEvent["type"], ask: Ask, version: number): void {
    if (version < (this.#shown.peek(ask.id)?.version ?? -1)) return;
    // Bounded: an ask not shown for this long has no notice of an older version still coming.
    this.#shown.set(ask.id, stateOf(ask, version));
    this.bus.publish(spaceId, { type, ask }, version);
  }

  /**
   * Shows an ask again (its `waiting` changed), read at `version` now: as the newest version shown
   * left it, when that is older (the notices of the versions between are still coming).
   */
  #showAgain(spaceId: string, ask: Ask, version: number): void {
    const shown = this.#shown.peek(ask.id);
    if (shown && shown.version < version) this.#show(spaceId, "ask.updated", askAsOf(ask, shown), shown.version);
    else this.#show(spaceId, "ask.updated", ask, version);
  }
}
