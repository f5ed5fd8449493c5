// A planned restart (`loopback restart`) never closes the listening port: the next process binds it
// before the old one stops listening, the old one hands its waiting calls over, and every client —
// SDK clients posing as Claude Code, Codex and Gemini CLI by what they send — resumes its call and
// returns its own answer, without one refused connection or a new `initialize`. A crash (`kill -9`)
// with the relay back within 4 s on the same port and data costs the same clients nothing either,
// except the refused connections of the outage. The clients run in a process of their own
// (clients-across-a-restart.ts): each holds two requests open, past what `bun test`'s fetch sends at
// once. PLANNED_RESTART_CALLS sets the calls per client (200 by default).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Ask } from "@loopback/shared/generated/types";
import { Person } from "../support/person.ts";
import { freePort, freshDatabase, RELAY_COMMAND, TEST_STORE } from "../support/relay-process.ts";
import { processGone } from "../support/process-gone.ts";
import { toolReply, until } from "./mcp-scene.ts";
import { CLIENTS, type ClientKind } from "./raw-client.ts";

const CLIENTS_SCRIPT = join(import.meta.dir, "clients-across-a-restart.ts");
const PER_CLIENT = Number(process.env.PLANNED_RESTART_CALLS ?? 200);
const KINDS = Object.keys(CLIENTS) as ClientKind[];
const CALLS = PER_CLIENT * KINDS.length;
const CHOICES = ["SQLite", "Redis", "None"];

const dataDir = mkdtempSync(join(tmpdir(), "loopback-planned-restart-"));
let env: Record<string, string | undefined>;
let url: string;
let log = "";
let person: Person;
let agentToken: string;
/** The relay process serving now. */
let servingPid = 0;
/** The clients' processes still running. */
const clientProcesses = new Set<Bun.Subprocess>();

const now = () => performance.timeOrigin + performance.now();

function cli(args: string[]) {
  const proc = Bun.spawnSync([...RELAY_COMMAND, ...args], { env, stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`loopback ${args.join(" ")} failed: ${proc.stderr}`);
  return proc.stdout.toString().trim();
}

/** Whether the relay's port takes a connection and answers. */
const answers = () => fetch(`${url}/api/v1/whoami`).then(() => true, () => false);

/** Starts `loopback serve`; when it first answered, looking every 10 ms. */
async function serve(): Promise<number> {
  const proc = Bun.spawn([...RELAY_COMMAND, "serve"], { env, stdout: "pipe", stderr: "pipe" });
  for (const stream of [proc.stdout, proc.stderr]) void (async () => { for await (const chunk of stream as ReadableStream<Uint8Array>) log += new TextDecoder().decode(chunk); })();
  await until(answers, "the relay answers", 15_000, 10).catch((e: Error) => {
    throw new Error(`${e.message}:\n${log}`);
  });
  servingPid = proc.pid;
  return now();
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  env = {
    ...process.env,
    LOOPBACK_DATA: dataDir,
    LOOPBACK_HOST: "127.0.0.1",
    LOOPBACK_PORT: String(port),
    LOOPBACK_WEB_BUILD: "off",
    LOOPBACK_FIRST_PERSON: "first",
    // A client comes back 2 s after its stream ends, and 2 s later again, then gives its call up: a
    // crashed relay has 4 s to answer again (1 s left 600 calls without an answer when a restart on a
    // busy machine took longer).
    LOOPBACK_STREAM_RETRY_S: "2",
    // One agent token holds every call: past the default caps on sessions, waiting calls and open asks.
    LOOPBACK_MAX_SESSIONS_PER_TOKEN: String(10 * CALLS),
    LOOPBACK_MAX_WAITING_PER_TOKEN: String(2 * CALLS),
    LOOPBACK_MAX_OPEN_ASKS_PER_TOKEN: String(2 * CALLS),
    LOOPBACK_MAX_OPEN_ASKS_PER_SPACE: String(2 * CALLS),
    ...(TEST_STORE === "postgres" ? { LOOPBACK_DATABASE_URL: await freshDatabase() } : {}),
  };
  person = new Person(url, cli(["token", "create", "--person", "ada"]).split("\n").at(-1)!);
  agentToken = cli(["token", "create", "--person", "ada", "--agent"]).split("\n").at(-1)!;
  await serve();
}, 60_000);

afterAll(() => {
  if (alive(servingPid)) process.kill(servingPid, "SIGKILL");
  // A test that failed leaves its clients waiting on calls nobody will answer.
  for (const child of clientProcesses) child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

interface Clients {
  prefix: string;
  /** The open ask of each call, by its project. */
  asks: Map<string, Ask>;
  /** Every call's result and when it arrived, and the wire per client. */
  done: Promise<{ results: { kind: ClientKind; project: string; at: number; result: CallToolResult }[]; wire: Record<ClientKind, { refused: number; initializes: number; deletes: number }> }>;
}

/** PER_CLIENT calls of each client, in a process of their own, every one waiting on its own ask. */
async function callsWaiting(prefix: string): Promise<Clients> {
  const child = Bun.spawn([process.execPath, CLIENTS_SCRIPT, url, agentToken, String(PER_CLIENT), prefix], {
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: String(8 * CALLS) },
    stdout: "pipe",
    stderr: "pipe",
  });
  clientProcesses.add(child);
  void child.exited.then(() => clientProcesses.delete(child));
  const output = new Response(child.stdout).text();
  const errors = new Response(child.stderr).text();
  let exited: number | null = null;
  void child.exited.then((code) => (exited = code));
  const mine = async () => (await person.snapshot()).open.filter((a) => a.project?.startsWith(`${prefix}-`));
  await until(
    async () => {
      if (exited !== null) throw new Error(`the clients left (${exited}):\n${await errors}`);
      const open = await mine();
      return open.length === CALLS && open.every((a) => a.waiting);
    },
    "every call follows its ask",
    60_000,
    // A snapshot of hundreds of asks is work for the relay: a few a second.
    200,
  );
  const asks = new Map((await mine()).map((a) => [a.project!, a]));
  const done = (async () => {
    const code = await child.exited;
    if (code !== 0) throw new Error(`the clients exited ${code}:\n${await errors}`);
    return JSON.parse(await output);
  })();
  return { prefix, asks, done };
}

/**
 * Replies to every call's ask (32 at a time, as people in many inboxes would) and checks that each
 * call returned its own answer, once; the time from each reply to its call's result, per client.
 */
async function answered({ prefix, asks, done }: Clients) {
  const repliedAt = new Map<string, number>();
  const choice = new Map([...asks.keys()].map((project, i) => [project, CHOICES[i % 3]]));
  // The clients' turns interleaved, so that no client's calls all wait behind the others'.
  const queue = Array.from({ length: PER_CLIENT }, (_, i) => KINDS.map((kind) => asks.get(`${prefix}-${kind}-${i}`)!)).flat().reverse();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      for (let ask = queue.pop(); ask; ask = queue.pop()) {
        repliedAt.set(ask.project!, now());
        expect((await person.reply(ask.id, { outcome: "answered", selected: [choice.get(ask.project!)!] })).status).toBe(200);
      }
    }),
  );
  const { results, wire } = await done;
  expect(results).toHaveLength(CALLS);
  expect(new Set(results.map((r) => r.project)).size).toBe(CALLS);
  const ms: Record<string, number[]> = {};
  for (const r of results) {
    const ask = asks.get(r.project)!;
    expect(toolReply(r.result)).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: [choice.get(r.project)!] } });
    (ms[r.kind] ??= []).push(r.at - repliedAt.get(r.project)!);
  }
  // Each ask took one reply and none is left open.
  expect((await person.snapshot()).open.filter((a) => asks.has(a.project ?? ""))).toEqual([]);
  return { ms, wire };
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const table = (what: string, ms: Record<string, number[]>) =>
  console.log(`${what}: ${Object.entries(ms).map(([k, xs]) => `${k} ${xs.length} calls, reply → result p50 ${percentile(xs, 50).toFixed(0)} ms, p99 ${percentile(xs, 99).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms`).join("; ")}`);
const noInitializeNoDelete = Object.fromEntries(KINDS.map((k) => [k, { refused: expect.any(Number), initializes: 0, deletes: 0 }]));

test(`a planned restart (loopback restart) while ${PER_CLIENT} calls of each client wait: every call returns its own answer, no connection refused, no new initialize`, async () => {
  const clients = await callsWaiting("planned");
  const before = servingPid;
  // Someone connecting all along the restart: never refused.
  let probing = true;
  let probes = 0;
  let refused = 0;
  const probe = (async () => {
    for (; probing; probes++) {
      if (!(await answers())) refused++;
      await Bun.sleep(5);
    }
  })();
  // On PostgreSQL the relay keeps no pid file, and `kill -HUP` is the documented command.
  if (TEST_STORE === "postgres") process.kill(before, "SIGHUP");
  else cli(["restart"]);
  await until(() => /handed over to process (\d+)/.test(log) && !alive(before), "the next process took over", 30_000);
  servingPid = Number(/handed over to process (\d+)/.exec(log)![1]);
  // Every call resumed on the next process: each of their asks, all still open, shows the agent waiting again.
  await until(
    async () => {
      const open = (await person.snapshot()).open.filter((a) => clients.asks.has(a.project ?? ""));
      return open.length === clients.asks.size && open.every((a) => a.waiting);
    },
    "every call resumed",
    30_000,
    200,
  );
  probing = false;
  await probe;
  const { ms, wire } = await answered(clients);
  table("planned restart", ms);
  console.log(`planned restart: ${probes} connections during it, ${refused} refused`);
  expect(refused).toBe(0);
  expect(wire).toEqual(Object.fromEntries(KINDS.map((k) => [k, { refused: 0, initializes: 0, deletes: 0 }])) as any);
}, 120_000);

test(`a crash (kill -9) with the relay back within 4 s on the same port and data while ${PER_CLIENT} calls of each client wait: every call returns its own answer, no new initialize`, async () => {
  const clients = await callsWaiting("crash");
  const crashedAt = now();
  process.kill(servingPid, "SIGKILL");
  // Started once the killed one is gone, as a supervisor restarts it: `kill` returns before the kernel
  // has taken the process and its port away, and a relay started meanwhile found the port held (a
  // full run saw "Port … is in use").
  const killed = servingPid;
  await until(() => processGone(killed), "the killed relay is gone", 5_000, 5);
  const closedMs = (await serve()) - crashedAt;
  const { ms, wire } = await answered(clients);
  const refused = Object.values(wire).reduce((n, w) => n + w.refused, 0);
  console.log(`crash: port closed ${closedMs.toFixed(0)} ms (kill -9 → the restarted relay answers); ${refused} client connections refused meanwhile`);
  table("crash", ms);
  expect(wire).toEqual(noInitializeNoDelete as any);
}, 120_000);
