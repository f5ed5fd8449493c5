// The relay in this test's own process, on a clock the test advances: the same wiring `loopback
// serve` runs (`startServer`: the store, the ask service, waiting, REST, the socket, MCP) on an
// ephemeral loopback port, with ada answering through the API and her agent over the official SDK
// client. For rules that take time (a wait's budget, a task's lease, the reclaim window, a ticket's
// or upload's life): the test moves the clock instead of sleeping. A separate process is for what
// only it proves (transports under a real clock, restarts, replicas): tests/support/scene.ts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFromEnv } from "../../relay/src/config.ts";
import { errorListeners } from "../../relay/src/logging/log.ts";
import type { Relay } from "../../relay/src/relay.ts";
import { startServer } from "../../relay/src/server.ts";
import { Agent } from "./agent.ts";
import { Person } from "./person.ts";
import { freshDatabase, storeRows } from "./relay-process.ts";
import { TestClock } from "./test-clock.ts";

export type StoreName = "sqlite" | "postgres";

/** Both stores, for `describe.each` over a rule the store takes part in (what was handed over, a stored deadline); a rule it does not touch runs on SQLite alone. */
export const BOTH_STORES: StoreName[] = ["sqlite", "postgres"];

export interface InProcessOptions {
  /** The store the relay keeps everything in: its SQLite file unless given. */
  store?: StoreName;
  /** Settings as the environment gives them, such as `LOOPBACK_WAIT_BUDGET_S`. */
  env?: Record<string, string>;
  /** How the agent introduces itself over MCP, or `false` to connect none. */
  client?: { name: string; version: string } | false;
}

export interface InProcessScene {
  relay: Relay;
  clock: TestClock;
  url: string;
  person: Person;
  agent: Agent;
  agentToken: string;
  /** Rows of a query (`$1`… for parameters) on the relay's store, as a test inspects it. */
  rows<T = Record<string, unknown>>(query: string, ...params: (string | number)[]): Promise<T[]>;
  /** Another token of ada's (an agent's with `agent: true`). */
  token(opts?: { agent?: boolean; person?: string }): Promise<string>;
  dispose(): Promise<void>;
}

/** Scenes of this process stopping now. */
let stopping = 0;

/** How Claude Code introduces itself; what the relay shows as `claude-code 2.1.0`. */
const CLAUDE_CODE = { name: "claude-code", version: "2.1.0" };

export async function inProcessScene(opts: InProcessOptions = {}): Promise<InProcessScene> {
  const dataDir = mkdtempSync(join(tmpdir(), "loopback-scene-"));
  const config = configFromEnv({
    LOOPBACK_DATA: dataDir,
    LOOPBACK_HOST: "127.0.0.1",
    LOOPBACK_PORT: "0",
    LOOPBACK_LOG_LEVEL: "warn",
    ...(opts.store === "postgres" ? { LOOPBACK_DATABASE_URL: await freshDatabase() } : {}),
    ...opts.env,
  });
  const clock = new TestClock();
  // An error logged anywhere in the relay while it runs fails the scene, as an internal error in a
  // relay process's log does. Not while a scene of this process is stopping (the log is the process's):
  // a sweep the clock fired may still be reading the store as it closes, and says so.
  const errors: unknown[] = [];
  const heard = (error: unknown) => void (stopping > 0 || errors.push(error));
  errorListeners.add(heard);
  const running = await startServer(config, { clock });
  const { relay, url } = running;
  const token = async (o: { agent?: boolean; person?: string } = {}) => (await relay.gate.createToken({ person: o.person ?? "ada", agent: o.agent })).token;
  const person = new Person(url, await token());
  const agentToken = await token({ agent: true });
  const client = opts.client ?? CLAUDE_CODE;
  const agent = client === false ? (undefined as unknown as Agent) : await Agent.connect(url, agentToken, client.name, client.version);
  return {
    relay,
    clock,
    url,
    person,
    agent,
    agentToken,
    token,
    rows: (query, ...params) => storeRows({ dataDir, databaseUrl: config.databaseUrl ?? undefined }, query, ...params),
    async dispose() {
      await agent?.close().catch(() => {});
      // What the last calls set going (who waits on an ask is told a turn later) ends before the store closes.
      await new Promise((r) => setImmediate(r));
      stopping++;
      await running.stop().finally(() => stopping--);
      errorListeners.delete(heard);
      rmSync(dataDir, { recursive: true, force: true });
      if (errors.length) throw new Error(`the relay logged errors:\n${errors.map((e) => (e instanceof Error ? (e.stack ?? e.message) : String(e))).join("\n")}`);
    },
  };
}
