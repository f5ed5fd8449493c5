// The relay's parts, wired once. Every adapter (REST, socket, MCP) gets this and nothing else.
import { AskService } from "./asks/ask-service.ts";
import { Waiting } from "./asks/waiting.ts";
import { McpSessions } from "./storage/mcp-sessions.ts";
import { Tasks } from "./storage/tasks.ts";
import { WaitingCalls } from "./storage/waiting-calls.ts";
import { Gate, type Caller } from "./auth/gate.ts";
import { RevocationWatch } from "./auth/revocation-watch.ts";
import { FailureLimiter } from "./limits/failure-limiter.ts";
import { Clock } from "./clock.ts";
import { assertStoreSupported, type Config } from "./config.ts";
import { AskEventBus } from "./asks/ask-event-bus.ts";
import { TicketBook } from "./events/tickets.ts";
import { PushDevices } from "./push/devices.ts";
import { PushSender } from "./push/push-sender.ts";
import { vapidKeys, type VapidKeys } from "./push/vapid-keys.ts";
import { AskStore } from "./storage/ask-store.ts";
import { openDb, type Db } from "./storage/db.ts";
import { UploadService } from "./uploads/upload-service.ts";
import { problem, LoopbackProblem } from "@loopback/shared/problems";

export class Relay {
  readonly db: Db;
  readonly clock = new Clock();
  readonly bus = new AskEventBus();
  readonly gate: Gate;
  readonly asks: AskService;
  readonly waiting: Waiting;
  readonly sessions: McpSessions;
  readonly uploads: UploadService;
  readonly tickets: TicketBook;
  readonly limiter = new FailureLimiter();
  /** Sockets (and, in time, sessions) register here to be cut off when their token is revoked. */
  readonly revocations: RevocationWatch;
  #sweeper: ReturnType<typeof setInterval>;
  readonly pushDevices: PushDevices;
  readonly pushKeys: VapidKeys;
  readonly push: PushSender;

  constructor(readonly config: Config) {
    assertStoreSupported(config);
    this.db = openDb(config.dataDir);
    this.gate = new Gate(this.db, this.clock);
    this.uploads = new UploadService(this.db, this.clock, config);
    const asks = new AskStore(this.db);
    this.waiting = new Waiting(asks, this.bus, this.clock, new WaitingCalls(this.db), new Tasks(this.db), { maxPerToken: config.maxWaitingPerToken });
    this.asks = new AskService(asks, this.uploads, this.bus, this.clock, this.waiting, config.reclaimMs);
    this.sessions = new McpSessions(this.db);
    this.tickets = new TicketBook({ ttlMs: config.eventTicketTtlMs, maxPerToken: config.maxEventTicketsPerToken });
    this.revocations = new RevocationWatch(this.gate, config.revocationCheckMs);
    this.revocations.watch({ held: () => this.tickets.holders(), revoked: (ids) => this.tickets.void(ids) });
    this.#sweeper = setInterval(() => this.sweep(), Math.max(config.sweepEveryMs, 50));
    this.#sweeper.unref?.();
    this.pushDevices = new PushDevices(this.db, this.clock);
    this.pushKeys = vapidKeys(this.db, this.clock);
    this.push = new PushSender(this.db, this.clock, config, this.pushDevices, this.pushKeys);
    this.push.listen(this.bus);
  }

  /** Forgets what expired unused: event tickets and upload tickets. */
  sweep(): void {
    this.tickets.sweep();
    this.uploads.sweepExpired();
  }

  /** The caller behind an `Authorization` header. A valid token always passes; refused ones from an address that guesses too much get 429. */
  authenticate(authorization: string | null, address: string): Caller {
    try {
      return this.gate.authenticate(authorization);
    } catch (e) {
      if (e instanceof LoopbackProblem && e.code === "auth.invalid" && this.limiter.refused(address) === "limited") throw problem("auth.rate_limited");
      throw e;
    }
  }

  close(): void {
    clearInterval(this.#sweeper);
    this.revocations.stop();
    this.db.$client.close();
  }
}
