// Prometheus metrics at /metrics (prom-client's exposition), read from the relay's parts when scraped.
// Not open to the world: served to this machine's own addresses (a request a proxy forwarded is not
// one, whatever address the proxy connects from), and to anyone else only with LOOPBACK_METRICS_TOKEN
// as a bearer token. Counts of one process: with replicas, scrape each.
import { timingSafeEqual } from "node:crypto";
// Each part by its own file, not the index (see prom-client-parts.d.ts).
import Counter from "prom-client/lib/counter";
import Gauge from "prom-client/lib/gauge";
import Histogram from "prom-client/lib/histogram";
import Registry from "prom-client/lib/registry";
import { problem } from "@loopback/shared/problems";
import { problemResponse } from "../http/problem-response.ts";
import { errorListeners } from "../logging/log.ts";
import type { Waiting } from "../asks/waiting.ts";
import type { PushSender } from "../push/push-sender.ts";
import type { UpkeepRecords } from "../storage/store.ts";

const LOOPBACK_ADDRESS = /^(127\.|::1$|::ffff:127\.)/;
/** From a millisecond (an agent already waiting) to an hour (a reply picked up long after). */
const LATENCY_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 3600];

/** What the metrics read of the relay when scraped, and hear from it as it goes. */
export interface MetricsSources {
  store: { upkeep: Pick<UpkeepRecords, "openAsks"> };
  waiting: Pick<Waiting, "followers" | "byClient" | "onHandOver">;
  push: Pick<PushSender, "outcomes">;
}

export class Metrics {
  readonly registry = new Registry();
  #token?: Buffer;
  #unlisten: () => void;

  constructor(relay: MetricsSources, sockets: () => number, token?: string) {
    this.#token = token ? Buffer.from(token) : undefined;
    const registers = [this.registry];
    new Gauge({
      name: "loopback_asks_open",
      help: "Asks not closed, by whose move it is (awaiting_human, awaiting_agent).",
      labelNames: ["status"],
      registers,
      async collect() {
        const counts = await relay.store.upkeep.openAsks();
        for (const status of ["awaiting_human", "awaiting_agent"] as const) this.set({ status }, counts.find((c) => c.status === status)?.count ?? 0);
      },
    });
    new Gauge({
      name: "loopback_asks_waiting",
      help: "Asks an agent follows on this relay right now (a call waiting on it, or a task polling it).",
      registers,
      collect() {
        this.set(relay.waiting.followers.asks);
      },
    });
    new Gauge({
      name: "loopback_calls_waiting",
      help: "Blocking tool calls waiting on the person on this relay, by the MCP client's name.",
      labelNames: ["client"],
      registers,
      collect() {
        this.reset();
        for (const [client, n] of relay.waiting.byClient) this.set({ client }, n);
      },
    });
    new Gauge({
      name: "loopback_sockets_open",
      help: "Inbox event sockets open on this relay.",
      registers,
      collect() {
        this.set(sockets());
      },
    });
    const latency = new Histogram({
      name: "loopback_reply_to_agent_seconds",
      help: "From the person's reply being stored to its hand-over to an agent's call or task.",
      buckets: LATENCY_BUCKETS_S,
      registers,
    });
    relay.waiting.onHandOver = (ms) => latency.observe(Math.max(ms, 0) / 1000);
    new Counter({
      name: "loopback_pushes_total",
      help: "Web Pushes: sent (taken by the push service), failed (refused or unreachable), gone (the device's subscription ended).",
      labelNames: ["outcome"],
      registers,
      collect() {
        this.reset();
        for (const [outcome, n] of Object.entries(relay.push.outcomes)) this.inc({ outcome }, n);
      },
    });
    const databaseErrors = new Counter({ name: "loopback_database_errors_total", help: "Errors the database answered or a lost connection to it, as logged.", registers });
    const heard = (error: unknown) => {
      if (isDatabaseError(error)) databaseErrors.inc();
    };
    errorListeners.add(heard);
    this.#unlisten = () => errorListeners.delete(heard);
  }

  async handle(request: Request, address: string): Promise<Response> {
    if (!this.allowed(request, address)) return problemResponse(problem("metrics.refused"));
    return new Response(await this.registry.metrics(), { headers: { "Content-Type": this.registry.contentType, "Cache-Control": "no-store" } });
  }

  private allowed(request: Request, address: string): boolean {
    const forwarded = request.headers.has("x-forwarded-for") || request.headers.has("forwarded");
    if (!forwarded && LOOPBACK_ADDRESS.test(address)) return true;
    if (!this.#token) return false;
    const sent = Buffer.from(/^Bearer (.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? "");
    return sent.length === this.#token.length && timingSafeEqual(sent, this.#token);
  }

  close(): void {
    this.#unlisten();
  }
}

const DATABASE_ERRORS = new Set(["SQLiteError", "PostgresError", "DrizzleQueryError"]);
const CONNECTION_CODES = /^(CONNECTION_|CONNECT_TIMEOUT|ECONNREFUSED|ECONNRESET|SQLITE_)/;

/** An error of the database or of the connection to it, however deep it is wrapped. */
export function isDatabaseError(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (DATABASE_ERRORS.has(e.name) || CONNECTION_CODES.test(String((e as { code?: unknown }).code ?? ""))) return true;
  }
  return false;
}
