// The relay's parts, wired once. Every adapter (REST, socket, MCP) takes the parts of it it uses. The
// store is the SQLite file (one relay) or PostgreSQL (any number of replicas on one database); what
// another replica changes reaches this one's ask feed through `store.listen`.
import { AskService } from "./asks/ask-service.ts";
import { Waiting } from "./asks/waiting.ts";
import { FollowersElsewhere } from "./asks/followers-elsewhere.ts";
import { CachedAsks } from "./asks/cached-asks.ts";
import { RecentAsks } from "./asks/recent-asks.ts";
import { Gate } from "./auth/gate.ts";
import { authenticator, type Authenticate } from "./auth/authenticate.ts";
import { RevocationWatch } from "./auth/revocation-watch.ts";
import { FailureLimiter } from "./limits/failure-limiter.ts";
import { Clock, type Timer } from "./clock.ts";
import type { Config } from "./config.ts";
import { AskEventBus } from "./asks/ask-event-bus.ts";
import { AskFeed } from "./asks/ask-feed.ts";
import { TicketBook } from "./auth/event-tickets.ts";
import { PushDevices } from "./push/devices.ts";
import { PushSender } from "./push/push-sender.ts";
import { PushDestinations } from "./push/push-destinations.ts";
import { vapidKeys, type VapidKeys } from "./push/vapid-keys.ts";
import { TaskLifetimes } from "./mcp/task-lifetimes.ts";
import { openStore } from "./storage/open-store.ts";
import type { SessionRecords, Store } from "./storage/store.ts";
import { UploadService } from "./uploads/upload-service.ts";
import { isDatabaseAway } from "./storage/database-reach.ts";
import { prune, RETENTION_EVERY_MS } from "./upkeep/retention.ts";
import type { Pruned } from "./storage/store.ts";
import { log } from "./logging/log.ts";

export class Relay {
  readonly taskLifetimes: TaskLifetimes;
  readonly bus = new AskEventBus();
  /** Every change to an ask, made here or on another replica, to the inboxes and followers in order. */
  readonly feed: AskFeed;
  readonly gate: Gate;
  readonly asks: AskService;
  readonly waiting: Waiting;
  readonly sessions: SessionRecords;
  readonly uploads: UploadService;
  readonly tickets: TicketBook;
  readonly limiter: FailureLimiter;
  /** The caller behind an `Authorization` header. A valid token always passes; refused ones from an address that guesses too much get 429. */
  readonly authenticate: Authenticate;
  /** Sockets and MCP sessions register here to be cut off when their token is revoked. */
  readonly revocations: RevocationWatch;
  readonly pushDevices: PushDevices;
  readonly push: PushSender;
  #sweeper: Timer;
  #retention: Timer;
  #pruning?: Promise<unknown>;
  #cached?: CachedAsks;
  #closed = false;

  /**
   * Opens the store the configuration names, brings it up to date, and starts listening to the other
   * replicas. Every duration the relay waits for is measured and waited for on `clock`.
   */
  static async open(config: Config, clock = new Clock()): Promise<Relay> {
    const store = await openStore(config);
    try {
      const relay = new Relay(config, store, await vapidKeys(store.push, clock), clock);
      // Replicas hear each other's changes and followers. One relay on its SQLite file hears nobody
      // and knows every follower in memory: its feed shows its own changes in their commits' turns.
      const { listen } = store;
      if (listen) {
        const elsewhere = new FollowersElsewhere(store.follows, store.replica, (askId) => relay.feed.flipped(askId));
        relay.waiting.shareWith(elsewhere);
        await relay.feed.listen({ listen, reach: store.reach }, elsewhere);
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
    this.authenticate = authenticator(this.gate, this.limiter, clock);
    this.uploads = new UploadService(store.uploads, this.clock, config);
    // One relay on its file is the only writer of asks: they are kept in memory in front of it.
    const asks = store.kind === "sqlite" ? (this.#cached = new CachedAsks(store.asks)) : store.asks;
    // Where other replicas write too, a person's reply starts from this relay's own copy of the ask.
    const recent = store.kind === "sqlite" ? undefined : new RecentAsks();
    this.waiting = new Waiting(asks, { flipped: (askId) => this.feed.flipped(askId) }, this.clock, { maxPerToken: config.maxWaitingPerToken });
    this.feed = new AskFeed(asks, this.bus, this.waiting, this.clock, recent);
    this.asks = new AskService(asks, this.uploads, this.bus, this.feed, this.clock, this.waiting, config.reclaimMs, config, recent);
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

  async close(): Promise<void> {
    this.#closed = true;
    this.#sweeper.cancel();
    this.#retention.cancel();
    await this.#pruning;
    this.revocations.stop();
    await this.feed.close();
    await this.store.close();
  }
}
