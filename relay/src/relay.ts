// The relay's parts, wired once. Every adapter (REST, socket, MCP) gets this and nothing else.
import { AskService } from "./asks/ask-service.ts";
import { Waiting } from "./asks/waiting.ts";
import { McpSessions } from "./storage/mcp-sessions.ts";
import { Tasks } from "./storage/tasks.ts";
import { WaitingCalls } from "./storage/waiting-calls.ts";
import { Gate, type Caller } from "./auth/gate.ts";
import { FailureLimiter } from "./auth/rate-limit.ts";
import { Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import { EventBus } from "./events/event-bus.ts";
import { TicketBook } from "./events/tickets.ts";
import { AskStore } from "./storage/ask-store.ts";
import { openDb, type Db } from "./storage/db.ts";
import { UploadService } from "./uploads/upload-service.ts";
import { problem, LoopbackProblem } from "@loopback/shared/problems";

export class Relay {
  readonly db: Db;
  readonly clock = new Clock();
  readonly bus = new EventBus();
  readonly gate: Gate;
  readonly asks: AskService;
  readonly waiting: Waiting;
  readonly sessions: McpSessions;
  readonly uploads: UploadService;
  readonly tickets = new TicketBook();
  readonly limiter = new FailureLimiter();

  constructor(readonly config: Config) {
    this.db = openDb(config.dataDir);
    this.gate = new Gate(this.db, this.clock);
    this.uploads = new UploadService(this.db, this.clock, config);
    const asks = new AskStore(this.db);
    this.waiting = new Waiting(asks, this.bus, this.clock, new WaitingCalls(this.db), new Tasks(this.db), { maxPerToken: config.maxWaitingPerToken });
    this.asks = new AskService(asks, this.uploads, this.bus, this.clock, this.waiting, config.reclaimMs);
    this.sessions = new McpSessions(this.db);
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
    this.db.$client.close();
  }
}
