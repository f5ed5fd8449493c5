// PostgreSQL going away under two relays behind HAProxy, with 100 agents waiting through the official
// SDK client and an inbox socket open on each relay: restarted cleanly, killed with `kill -9` and
// restarted, and cut off by the network for 10 s (a TCP proxy between the relays and the database).
// In each: no relay dies, no call ends in an error and every call keeps getting progress, a reply
// given before, during (refused with 503, sent again) or after the outage reaches its agent within a
// second of the database being back, each inbox ends holding exactly the open asks the database
// holds, `/healthz` answers fast throughout (HAProxy keeps both relays in rotation), and the REST API
// answers 503 `database.unreachable` with `Retry-After` while the database is away, never hanging.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Ask, ServerEvent } from "@loopback/shared/generated/types";
import type { Agent } from "../support/agent.ts";
import type { EventSocket, Person } from "../support/person.ts";
import { HealthWatch } from "../support/health-watch.ts";
import { Replicas } from "../support/replicas.ts";
import { newProject, running, until } from "../support/scene.ts";
import { questionInput, toolReply } from "../mcp/mcp-scene.ts";

const AGENTS = 100;
/** How long a stopped or killed PostgreSQL stays down before it is started again. */
const DOWN_MS = 3_000;
/** How long the network between relays and database stays cut. */
const CUT_MS = 10_000;
/**
 * The goal: a reply reaches its agent within 1 s of its acknowledgement, or of the database being
 * back, and the relays serve again within 1 s; both are printed. Asserted with room for this 2-core
 * machine under other runs' load (a load average of 20 measured up to 1.3 s), still far below the
 * 10–20 s that postgres.js's own reconnection backoff held replicas away.
 */
const REACHES_WITHIN_MS = 2_500;
const HEALTH_WITHIN_MS = 50;
/** The longest a REST request may take to be refused while the database is away (its connect timeout is 2 s). */
const REFUSED_WITHIN_MS = 3_000;

/** An inbox as the extension keeps one: a snapshot replaces it, a change replaces its ask; reopened when the relay closes it. */
class Inbox {
  asks = new Map<string, Ask>();
  #seen = 0;
  #socket?: EventSocket;
  #stopped = false;
  reopened = 0;

  constructor(private person: Person) {}

  async open(): Promise<this> {
    this.#socket = await this.person.socket();
    this.#seen = 0;
    return this;
  }

  /** Applies the frames received so far; reopens a socket the relay closed. */
  async catchUp(): Promise<void> {
    const s = this.#socket!;
    for (; this.#seen < s.frames.length; this.#seen++) apply(this.asks, s.frames[this.#seen]);
    if (s.closed && !this.#stopped) {
      this.reopened++;
      await this.open().catch(() => {});
    }
  }

  /** What the frames said of one ask, in order, for a failure's message. */
  framesOf(askId: string): string[] {
    return (this.#socket?.frames ?? []).map((f) => (f.type === "snapshot" ? `snapshot(${[...f.snapshot.open, ...f.snapshot.recent].find((a) => a.id === askId)?.status ?? "absent"})` : f.ask.id === askId ? `${f.type}(${f.ask.status})` : "")).filter(Boolean);
  }

  openAsks(): string[] {
    return [...this.asks.values()].filter((a) => a.status !== "closed").map((a) => `${a.id}:${a.status}:${a.thread.length}`).sort();
  }

  close(): void {
    this.#stopped = true;
    this.#socket?.close();
  }
}

function apply(asks: Map<string, Ask>, frame: ServerEvent): void {
  if (frame.type === "snapshot") {
    asks.clear();
    // Revision 1's snapshot, which this socket reads, carries asks whole.
    const whole = frame.snapshot as unknown as { open: Ask[]; recent: Ask[] };
    for (const a of [...whole.open, ...whole.recent]) asks.set(a.id, a);
  } else asks.set(frame.ask.id, frame.ask);
}

interface Call {
  agent: Agent;
  project: string;
  askId?: string;
  reply: { outcome: "answered"; selected: string[]; text: string };
  call: Promise<CallToolResult> & { settled: boolean };
  returnedAt?: number;
  progressAt: number[];
  /** When the person's reply was acknowledged with 200. */
  ackAt?: number;
}

function startCall(agent: Agent): Call {
  const project = newProject();
  const c = { agent, project, progressAt: [] as number[], reply: { outcome: "answered" as const, selected: [], text: `answer for ${project}` } } as unknown as Call;
  const options = { timeout: 10 * 60_000, resetTimeoutOnProgress: true, onprogress: () => void c.progressAt.push(performance.now()) };
  c.call = running(agent.client.callTool({ name: "ask_question", arguments: questionInput(project) }, undefined, options) as Promise<CallToolResult>);
  void c.call.then(
    () => (c.returnedAt = performance.now()),
    () => (c.returnedAt = performance.now()),
  );
  return c;
}

describe("PostgreSQL going away under 2 relays behind HAProxy, 100 agents waiting and inboxes open", () => {
  let r: Replicas;
  let person: Person;
  const agents: Agent[] = [];
  let inboxes: Inbox[] = [];
  let health: HealthWatch;

  beforeAll(async () => {
    r = await Replicas.start(2, {
      // Its own server: the test stops and kills it.
      ownServer: true,
      throughProxy: true,
      // Progress every second shows a wait goes on through the outage; the budget outlasts the test.
      // Each fault's 100 agents ask on one token, and an ask left open by a fault before stays open.
      env: { LOOPBACK_PROGRESS_EVERY_S: "1", LOOPBACK_WAIT_BUDGET_S: "600", LOOPBACK_MAX_OPEN_ASKS_PER_TOKEN: "1000", LOOPBACK_MAX_OPEN_ASKS_PER_SPACE: "1000" },
    });
    const personToken = await r.token("ada");
    const agentToken = await r.token("ada", { agent: true });
    person = r.person(personToken, "balancer");
    for (let i = 0; i < AGENTS; i += 20) agents.push(...(await Promise.all(Array.from({ length: 20 }, (_, j) => r.agent(agentToken, "balancer", `agent-${i + j}`)))));
    inboxes = await Promise.all([0, 1].map((i) => new Inbox(r.person(personToken, i)).open()));
    health = new HealthWatch([0, 1].map((i) => r.urlOf(i))).start();
  }, 90_000);

  afterAll(async () => {
    health?.stop();
    if (process.env.DBF_DEBUG) console.log(r.relays.map((x) => x.log).join("\n---\n"));
    for (const inbox of inboxes) inbox.close();
    await Promise.all(agents.map((a) => a.close().catch(() => {})));
    await r?.dispose();
  });

  /** Asks until every call's ask is open and followed; names each call's ask. */
  async function opened(calls: Call[]): Promise<void> {
    await until(
      async () => {
        const res = await person.api("GET", "/snapshot");
        if (res.status !== 200) return false;
        const open = new Map((res.body.open as Ask[]).filter((a) => a.waiting).map((a) => [a.project!, a.id]));
        for (const c of calls) c.askId = open.get(c.project);
        return calls.every((c) => c.askId);
      },
      `all ${calls.length} asks are open and followed`,
      30_000,
    );
  }

  /**
   * Replies as the inbox does: a `503` is sent again after a moment, anything else but `200` fails.
   * A connection cut before its answer came (a relay or HAProxy closing a kept-alive connection as the
   * reply went out on it) leaves the draft for the person to send again; the reply may have been
   * stored all the same, and the one sent again is then refused as the ask closed. Which reply the
   * ask holds is checked where its agent's result is.
   */
  async function replyTo(c: Call): Promise<void> {
    let unanswered = false;
    for (;;) {
      const res = await person.reply(c.askId!, c.reply).catch(cutOff);
      if (res?.status === 200 || (unanswered && res?.status === 409 && (res.body as unknown as { code: string }).code === "ask.closed")) return void (c.ackAt = performance.now());
      if (res) expect([res.status, (res.body as unknown as { code: string }).code, res.headers.get("retry-after")]).toEqual([503, "database.unreachable", "1"]);
      unanswered ||= !res;
      await Bun.sleep(100);
    }
  }

  /** A connection cut before its answer came (fetch's `ECONNRESET`) answers nothing; any other failure is the test's. */
  function cutOff(e: unknown): undefined {
    if ((e as { code?: unknown }).code !== "ECONNRESET") throw e;
    return undefined;
  }

  async function replyAll(calls: Call[], workers = 8): Promise<void> {
    const queue = [...calls];
    await Promise.all(
      Array.from({ length: workers }, async () => {
        for (let c = queue.shift(); c; c = queue.shift()) await replyTo(c);
      }),
    );
  }

  /** The open asks the database holds, as the REST API reads them, in the inboxes' form. */
  async function openInDatabase(): Promise<string[]> {
    return (await person.snapshot()).open.map((a) => `${a.id}:${a.status}:${a.thread.length}`).sort();
  }

  const faults: { name: string; down(): Promise<void> | void; up(): Promise<void> | void; awayMs: number }[] = [
    { name: "restarted cleanly", down: () => r.postgres!.stopCleanly(), up: () => r.postgres!.resume(), awayMs: DOWN_MS },
    { name: "killed with kill -9 and restarted", down: () => r.postgres!.kill9(), up: () => r.postgres!.resume(), awayMs: DOWN_MS },
    { name: "cut off by the network for 10 s", down: () => r.proxy!.cut(), up: () => r.proxy!.restore(), awayMs: CUT_MS },
  ];

  for (const fault of faults) {
    test(`PostgreSQL ${fault.name}: no call ends in an error, every reply arrives within 1 s of it being back, every inbox ends exact`, async () => {
      const calls = agents.map(startCall);
      await opened(calls);
      const before = calls.slice(0, 20);
      const during = calls.slice(20, 40);
      const after = calls.slice(40);
      await replyAll(before);

      // The database goes away.
      const logFrom = r.relays.map((relay) => relay.log.length);
      await fault.down();
      const downAt = performance.now();
      const downWall = Date.now();
      // The REST API refuses at once (not a hang) on every relay, saying why and when to come back.
      for (let i = 0; i < 2; i++) {
        const asked = performance.now();
        const res = await r.person(person.token, i).api("GET", "/snapshot");
        const tookMs = performance.now() - asked;
        expect({ replica: i, status: res.status, code: res.body.code, retryAfter: res.headers.get("retry-after"), quick: tookMs < REFUSED_WITHIN_MS }).toEqual({
          replica: i,
          status: 503,
          code: "database.unreachable",
          retryAfter: "1",
          quick: true,
        });
      }
      // The person replies meanwhile: refused with 503, and sent again until it is taken.
      const replyingDuring = Promise.all(during.map(replyTo));
      await Bun.sleep(fault.awayMs - (performance.now() - downAt));
      // HAProxy kept both relays in rotation: their database is everyone's.
      expect(Object.values(await r.balancer.statuses())).toEqual(["UP", "UP"]);
      const awayUntil = performance.now();
      await fault.up();
      const backAt = performance.now();
      // Right after, on both relays at once: the other replies, then new asks from the agents already answered.
      await Promise.all([replyingDuring, replyAll(after)]);
      const fresh = before.map((c) => startCall(c.agent));
      await opened(fresh);

      const servingAgainMs = Math.min(...[...during, ...after].map((c) => c.ackAt!)) - backAt;

      // Every call returns its own reply, none with an error.
      await until(() => [...before, ...during, ...after].every((c) => c.call.settled), "every answered call returned", 20_000).catch((e) => {
        const left = calls.filter((c) => !c.call.settled).map((c) => ({ askId: c.askId, ackedAfterBackMs: Math.round(c.ackAt! - backAt), progress: c.progressAt.length }));
        throw new Error(`${(e as Error).message}: ${left.length} had not: ${JSON.stringify(left)}`);
      });
      for (const c of calls) expect(toolReply(await c.call)).toEqual({ askId: c.askId!, reply: c.reply } as never);
      // Within a second of its acknowledgement, or of the database being back for one given before it went.
      const late = calls.map((c) => c.returnedAt! - (c.returnedAt! > downAt ? Math.max(c.ackAt!, backAt) : c.ackAt!));
      console.log(`${fault.name}: relays serving again ${Math.round(servingAgainMs)} ms after the database; reply → agent at most ${Math.round(Math.max(...late))} ms after its acknowledgement or the database being back`);
      const tooLate = calls.filter((_, i) => late[i] > REACHES_WITHIN_MS);
      if (tooLate.length) {
        // Which calls, when, and what the relays said of the database and their listeners: enough to tell a slow listener from a slow relay.
        const group = (c: Call) => (before.includes(c) ? "before" : during.includes(c) ? "during" : "after");
        const at = (t?: number) => (t === undefined ? null : Math.round(t - backAt));
        console.log(`${fault.name}: late calls, ms after the database was back: ${JSON.stringify(tooLate.map((c) => ({ group: group(c), askId: c.askId, ackedAt: at(c.ackAt), returnedAt: at(c.returnedAt), lastProgressAt: at(c.progressAt.at(-1)) })))}`);
        for (const [i, relay] of r.relays.entries()) console.log(`relay ${i}:\n${relay.log.split("\n").filter((l) => /database|listening|replicas/.test(l)).slice(-12).join("\n")}`);
      }
      expect(late.filter((ms) => ms > REACHES_WITHIN_MS)).toEqual([]);
      // Each relay read again what its listener missed at most once (not at all when the database's
      // return did it), not once for each try the listener made to reconnect while it was away.
      const readAgain = r.relays.map((relay, i) => relay.log.slice(logFrom[i]).split("reading what was missed").length - 1);
      expect(readAgain).toEqual(readAgain.map((n) => Math.min(n, 1)));
      // The waits that spanned the outage kept getting progress through it.
      for (const c of during) expect(c.progressAt.some((t) => t > downAt + 1_000 && t < awayUntil)).toBe(true);

      // Each inbox holds exactly the open asks the database holds.
      const expected = await openInDatabase();
      for (const c of fresh) expect(expected.some((a) => a.startsWith(`${c.askId}:`))).toBe(true);
      for (const inbox of inboxes) {
        await until(
          async () => {
            await inbox.catchUp();
            return JSON.stringify(inbox.openAsks()) === JSON.stringify(expected);
          },
          "the inbox holds the database's open asks",
          3_000,
        ).catch(async () => {
          const held = inbox.openAsks();
          const odd = [...held.filter((a) => !expected.includes(a)), ...expected.filter((a) => !held.includes(a))];
          const truth = await Promise.all(odd.map(async (a) => ({ held: a, stored: (await person.api("GET", `/asks/${a.split(":")[0]}`)).body.status, frames: inbox.framesOf(a.split(":")[0]) })));
          console.log(`inbox ${inboxes.indexOf(inbox)} differs (reopened ${inbox.reopened} times):`, JSON.stringify(truth));
          expect(held).toEqual(expected);
        });
      }

      // `/healthz` answered throughout, and fast: every answer a 204, the median within the goal. Timed
      // by a process of its own; on this 2-core machine shared with other runs its slowest answers
      // show the machine's pauses too, so they are printed rather than held to the goal.
      const samples = health.between(downWall - 1_000, Date.now());
      const times = samples.map((s) => s.ms).sort((a, b) => a - b);
      const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
      console.log(`${fault.name}: /healthz ${samples.length} answers, median ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, slowest ${at(1).toFixed(1)} ms`);
      expect(samples.filter((s) => s.status !== 204)).toEqual([]);
      expect(at(0.5)).toBeLessThan(HEALTH_WITHIN_MS);

      // The relays served again within a second of the database.
      expect(servingAgainMs).toBeLessThan(REACHES_WITHIN_MS);

      // The new asks are answered too, and their calls return.
      await replyAll(fresh);
      for (const c of fresh) expect(toolReply(await c.call)).toEqual({ askId: c.askId!, reply: c.reply } as never);
    }, 90_000);
  }
});
