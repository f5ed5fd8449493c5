// The relay's parts, wired once. Every adapter (REST, socket, MCP) gets this and nothing else. The
// store is the SQLite file (one relay) or PostgreSQL (any number of replicas on one database); what
// another replica changes reaches this one through `store.listen`.
import { AskService } from "./asks/ask-service.ts";
import { Waiting } from "./asks/waiting.ts";
import { FollowersElsewhere } from "./asks/followers-elsewhere.ts";
import { CachedAsks } from "./asks/cached-asks.ts";
import { Gate, type Caller } from "./auth/gate.ts";
import { RevocationWatch } from "./auth/revocation-watch.ts";
import { FailureLimiter } from "./limits/failure-limiter.ts";
import { Clock, type Timer } from "./clock.ts";
import type { Config } from "./config.ts";
import { AskEventBus } from "./asks/ask-event-bus.ts";
import { TicketBook } from "./events/tickets.ts";
import { PushDevices } from "./push/devices.ts";
import { PushSender } from "./push/push-sender.ts";
import { PushDestinations } from "./push/push-destinations.ts";
import { vapidKeys, type VapidKeys } from "./push/vapid-keys.ts";
import { TaskLifetimes } from "./mcp/task-lifetimes.ts";
import { openStore } from "./storage/open-store.ts";
import type { AskChange, SessionRecords, Store } from "./storage/store.ts";
import { UploadService } from "./uploads/upload-service.ts";
import { problem, LoopbackProblem } from "@loopback/shared/problems";
import { askAsOf } from "./storage/ask-as-of.ts";
import { isDatabaseAway } from "./storage/database-reach.ts";

/**
 * With replicas, every wait reads its ask again this often: a safety net for a notification lost
 * without its listener noticing (a reconnection is noticed, and read again at once).
 */
const SAFETY_LOOK_MS = 15_000;
import { prune, RETENTION_EVERY_MS } from "./upkeep/retention.ts";
import type { Pruned } from "./storage/store.ts";
import { log } from "./logging/log.ts";

const authLog = log("auth");

export class Relay {
  readonly taskLifetimes: TaskLifetimes;
  readonly bus = new AskEventBus();
  readonly gate: Gate;
  readonly asks: AskService;
  readonly waiting: Waiting;
  readonly sessions: SessionRecords;
  readonly uploads: UploadService;
  readonly tickets: TicketBook;
  readonly limiter: FailureLimiter;
  /** Sockets and MCP sessions register here to be cut off when their token is revoked. */
  readonly revocations: RevocationWatch;
  readonly pushDevices: PushDevices;
  readonly push: PushSender;
  #sweeper: Timer;
  #safetyNet?: ReturnType<typeof setInterval>;
  #retention: Timer;
  #pruning?: Promise<unknown>;
  #cached?: CachedAsks;
  #closed = false;
  #listening?: { close(): Promise<void> };
  #elsewhere?: FollowersElsewhere;
  /** Other replicas' changes, one ask at a time in the order they committed. */
  #changes = new Map<string, Promise<void>>();

  /**
   * Opens the store the configuration names, brings it up to date, and starts listening to the other
   * replicas. Every duration the relay waits for is measured and waited for on `clock`.
   */
  static async open(config: Config, clock = new Clock()): Promise<Relay> {
    const store = await openStore(config);
    try {
      const relay = new Relay(config, store, await vapidKeys(store.push, clock), clock);
      // One relay on its file knows every follower in memory; replicas tell each other theirs.
      const elsewhere = store.kind === "postgres" ? new FollowersElsewhere(store.follows, store.replica, (askId) => relay.#publish(askId, "ask.updated")) : undefined;
      if (elsewhere) {
        relay.#elsewhere = elsewhere;
        relay.waiting.shareWith(elsewhere);
        await elsewhere.start();
      }
      let listening = false;
      relay.#listening = await store.listen(
        (change) => relay.#onChange(change),
        // Called again after every reconnection of the listener: what it missed meanwhile is read again.
        () => {
          if (listening) relay.#catchUp();
          listening = true;
        },
        elsewhere && ((change) => elsewhere.heard(change)),
      );
      store.reach?.onBack(() => relay.#catchUp());
      if (store.kind === "postgres") {
        relay.#safetyNet = setInterval(() => relay.waiting.wakeAll(), SAFETY_LOOK_MS);
        relay.#safetyNet.unref?.();
      }
      return relay;
    } catch (e) {
      await store.close();
      throw e;
    }
  }

  private constructor(
    readonly config: Config,
    readonly store: Store,
    readonly pushKeys: VapidKeys,
    readonly clock: Clock,
  ) {
    /** How long this relay has known each MCP task, so that a wall clock set forward or back moves no task's end. */
    this.taskLifetimes = new TaskLifetimes(clock);
    this.gate = new Gate(store, this.clock);
    this.limiter = new FailureLimiter(store.failures);
    this.uploads = new UploadService(store.uploads, this.clock, config);
    // One relay on its file is the only writer of asks: they are kept in memory in front of it.
    const asks = store.kind === "sqlite" ? (this.#cached = new CachedAsks(store.asks)) : store.asks;
    this.waiting = new Waiting(asks, this.bus, this.clock, { maxPerToken: config.maxWaitingPerToken });
    this.asks = new AskService(asks, this.uploads, this.bus, this.clock, this.waiting, config.reclaimMs, config);
    this.sessions = store.sessions;
    this.tickets = new TicketBook(store.tickets, clock, { ttlMs: config.eventTicketTtlMs, maxPerToken: config.maxEventTicketsPerToken });
    this.revocations = new RevocationWatch(this.gate, config.revocationCheckMs, () => store.tokensVersion());
    this.#sweeper = clock.every(Math.max(config.sweepEveryMs, 50), () => this.sweep().catch((e) => isDatabaseAway(e) || log("storage").warn("sweep failed", { error: e })));
    // Once at start, then daily: a relay restarted more often than daily still keeps to its retention.
    const retain = () => {
      if (!this.#closed) this.#pruning = this.prune().catch((e) => log("storage").warn("retention failed", { error: e }));
    };
    this.#retention = clock.every(RETENTION_EVERY_MS, retain);
    setImmediate(retain);
    const destinations = new PushDestinations(config.pushHosts, config.pushDns);
    this.pushDevices = new PushDevices(store.push, this.clock, destinations, config.maxDevicesPerPerson);
    this.push = new PushSender(config, this.pushDevices, pushKeys, destinations);
    this.push.listen(this.bus);
  }

  /**
   * Changes from the other replicas may have been missed (the listener or the database was away):
   * every wait reads its ask again, every inbox gets its space afresh, and who follows what is read again.
   */
  #catchUp(): void {
    this.waiting.wakeAll();
    this.bus.resync();
    void this.#elsewhere?.reload().catch((e) => isDatabaseAway(e) || log("replicas").warn("could not read who follows what", { error: e }));
  }

  /**
   * An ask changed on another replica: whoever follows it here looks for a reply, and this replica's
   * inboxes get the ask as it now is. Changes of one ask are read one after another, so its frames
   * go out in the order it changed.
   */
  #onChange(change: AskChange): void {
    // A new ask is held waiting by the replica that opened it until its call follows it there (the
    // follow's own notice comes next): its first frame here says so too, as it does there.
    if (change.version === 0) this.#elsewhere?.heard({ askId: change.askId, replica: change.replica, following: true }, true);
    this.waiting.wake(change.askId);
    this.#publish(change.askId, change.version === 0 ? "ask.opened" : "ask.updated", change);
  }

  /**
   * Publishes an ask to this replica's inboxes, after every earlier frame of it: as `asOf` left it
   * (read later, the ask may hold later turns, whose own changes come next), or as it now is.
   */
  #publish(askId: string, type: "ask.opened" | "ask.updated", asOf?: AskChange): void {
    // Without `asOf` only its `waiting` changed: shown at the version already shown here.
    const previous = this.#changes.get(askId) ?? Promise.resolve();
    const next = previous
      .then(async () => {
        const stored = await this.store.asks.get(askId);
        if (!stored) return;
        if (asOf) this.bus.publish(stored.spaceId, type, this.waiting.withWaiting(askAsOf(stored.ask, asOf)), asOf.version);
        else this.bus.republish(stored.spaceId, this.waiting.withWaiting(stored.ask), stored.version);
      })
      // With the database away the frame is lost here; the inboxes are sent their space afresh once it is back.
      .catch((e) => void (isDatabaseAway(e) || log("replicas").warn("could not read ask {askId}, changed on another replica", { askId, error: e })))
      .finally(() => {
        if (this.#changes.get(askId) === next) this.#changes.delete(askId);
      });
    this.#changes.set(askId, next);
  }

  /** Forgets what expired unused: event tickets, upload tickets, refused-token counts. */
  async sweep(): Promise<void> {
    await this.tickets.sweep();
    await this.uploads.sweepExpired();
    await this.limiter.sweep(this.clock.wallMs());
  }

  /** Deletes closed asks past their retention, and the images only they showed (see upkeep/retention.ts). */
  async prune(): Promise<Pruned> {
    const pruned = await prune(this.store, this.config.retentionDays, this.clock.wallMs());
    this.#cached?.forget(pruned.asks);
    if (pruned.asks.length || pruned.images || pruned.notices) {
      log("storage").info("retention deleted {asks} closed asks, {images} images and {notices} push notices", { asks: pruned.asks.length, images: pruned.images, notices: pruned.notices });
    }
    return pruned;
  }

  /** The caller behind an `Authorization` header. A valid token always passes; refused ones from an address that guesses too much get 429. */
  async authenticate(authorization: string | null, address: string): Promise<Caller> {
    try {
      return await this.gate.authenticate(authorization);
    } catch (e) {
      if (e instanceof LoopbackProblem && e.code === "auth.invalid") {
        const limited = (await this.limiter.refused(address, this.clock.wallMs())) === "limited";
        // The address, never the token: a log reader must not be able to try it.
        authLog.warn(limited ? "rate-limited refused tokens from {address}" : "refused a token from {address}", { address, code: limited ? "auth.rate_limited" : e.code });
        if (limited) throw problem("auth.rate_limited");
      }
      throw e;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#sweeper.cancel();
    clearInterval(this.#safetyNet);
    this.#retention.cancel();
    await this.#pruning;
    this.revocations.stop();
    await this.#listening?.close().catch(() => {});
    await this.#elsewhere?.stop();
    await Promise.allSettled([...this.#changes.values()]);
    await this.store.close();
  }
}
