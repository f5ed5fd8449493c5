// A planned restart (`loopback restart`) never closes the listening port: the next process binds it
// before the old one stops listening, the old one hands its waiting calls over, and every client —
// SDK clients posing as Claude Code, Codex and Gemini CLI by what they send — resumes its call and
// returns the answer, without one refused connection or a new `initialize`. A crash (`kill -9`)
// with the relay back within 2 s costs the same clients nothing either, except the refused
// connections of the outage. PLANNED_RESTART_CALLS sets the calls per client (default 30: each client
// holds two requests open, and `bun test`'s own fetch sends at most 256 at a time, see many-agents.ts).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Person } from "../support/person.ts";
import { freePort, freshDatabase, TEST_STORE } from "../support/relay-process.ts";
import { newProject, questionInput, toolReply, until } from "./mcp-scene.ts";
import { CLIENTS, type ClientKind } from "./raw-client.ts";
import { runningPid } from "../../relay/src/planned-restart.ts";

const CLI = join(import.meta.dir, "../../relay/src/cli.ts");
const PER_CLIENT = Number(process.env.PLANNED_RESTART_CALLS ?? 30);
const KINDS = Object.keys(CLIENTS) as ClientKind[];

const dataDir = mkdtempSync(join(tmpdir(), "loopback-planned-restart-"));
let env: Record<string, string | undefined>;
let url: string;
let log = "";
let person: Person;
let agentToken: string;

function cli(args: string[]) {
  const proc = Bun.spawnSync([process.execPath, CLI, ...args], { env, stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`loopback ${args.join(" ")} failed: ${proc.stderr}`);
  return proc.stdout.toString().trim();
}

/** Starts `loopback serve`; its pid once it answers. */
async function serve(): Promise<number> {
  const proc = Bun.spawn([process.execPath, CLI, "serve"], { env, stdout: "pipe", stderr: "pipe" });
  for (const stream of [proc.stdout, proc.stderr]) void (async () => { for await (const chunk of stream as ReadableStream<Uint8Array>) log += new TextDecoder().decode(chunk); })();
  await until(async () => (await fetch(`${url}/api/v1/whoami`).catch(() => undefined))?.status === 401, "the relay answers", 15_000).catch((e) => {
    throw new Error(`${e.message}:\n${log}`);
  });
  return proc.pid;
}

const servingPid = () => Number(readFileSync(join(dataDir, "loopback.pid"), "utf8"));
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
    // A client comes back a second after its stream ends, and a second later again.
    LOOPBACK_STREAM_RETRY_S: "1",
    LOOPBACK_MAX_SESSIONS_PER_TOKEN: "100000",
    ...(TEST_STORE === "postgres" ? { LOOPBACK_DATABASE_URL: await freshDatabase() } : {}),
  };
  person = new Person(url, cli(["token", "create", "--person", "ada"]).split("\n").at(-1)!);
  agentToken = cli(["token", "create", "--person", "ada", "--agent"]).split("\n").at(-1)!;
  await serve();
}, 60_000);

afterAll(() => {
  const pid = runningPid(dataDir);
  if (pid) process.kill(pid, "SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

/** What went wrong on the wire for the agents: refused connections, new initializes. */
const wire = { refused: 0, initializes: 0 };

/** An SDK client posing as `kind`: its name, and the protocol version its `initialize` asks for. */
async function agentAs(kind: ClientKind): Promise<Client> {
  const { name, version, protocolVersion } = CLIENTS[kind];
  let connected = false;
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${agentToken}` } },
    fetch: async (input, init) => {
      if (typeof init?.body === "string" && init.body.includes('"initialize"')) {
        if (connected) wire.initializes++;
        const body = JSON.parse(init.body);
        body.params.protocolVersion = protocolVersion;
        init = { ...init, body: JSON.stringify(body) };
      }
      try {
        return await fetch(input, init);
      } catch (e) {
        wire.refused++;
        throw e;
      }
    },
  });
  const client = new Client({ name, version });
  await client.connect(transport);
  connected = true;
  return client;
}

interface Waiting {
  kind: ClientKind;
  project: string;
  askId?: string;
  call: Promise<CallToolResult>;
}

/** PER_CLIENT calls of each client, waiting on the person. */
async function callsWaiting(): Promise<{ clients: Client[]; calls: Waiting[] }> {
  const clients: Client[] = [];
  const calls: Waiting[] = [];
  for (const kind of KINDS) {
    for (let i = 0; i < PER_CLIENT; i++) {
      const client = await agentAs(kind);
      clients.push(client);
      const project = newProject();
      calls.push({ kind, project, call: client.callTool({ name: "ask_question", arguments: questionInput(project) }, undefined, { timeout: 120_000 }) as Promise<CallToolResult> });
    }
  }
  const projects = new Set(calls.map((c) => c.project));
  await until(async () => {
    const open = (await person.snapshot()).open.filter((a) => projects.has(a.project ?? ""));
    return open.length === calls.length && open.every((a) => a.waiting);
  }, "every call follows its ask", 60_000);
  const byProject = new Map((await person.snapshot()).open.map((a) => [a.project, a.id]));
  for (const c of calls) c.askId = byProject.get(c.project)!;
  return { clients, calls };
}

/** Replies to every call's ask and checks each returns its own answer; the time from reply to result, per client. */
async function answered(calls: Waiting[]): Promise<Record<string, number[]>> {
  const ms: Record<string, number[]> = {};
  await Promise.all(
    calls.map(async (c, i) => {
      const choice = ["SQLite", "Redis", "None"][i % 3];
      const at = performance.now();
      expect((await person.reply(c.askId!, { outcome: "answered", selected: [choice] })).status).toBe(200);
      expect(toolReply(await c.call)).toEqual({ askId: c.askId!, reply: { outcome: "answered", selected: [choice] } });
      (ms[c.kind] ??= []).push(performance.now() - at);
    }),
  );
  return ms;
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const table = (what: string, ms: Record<string, number[]>) =>
  console.log(`${what}: ${Object.entries(ms).map(([k, xs]) => `${k} ${xs.length} calls, reply → result p50 ${percentile(xs, 50).toFixed(0)} ms, p99 ${percentile(xs, 99).toFixed(0)} ms`).join("; ")}`);

test(`a planned restart (loopback restart) while ${PER_CLIENT} calls of each client wait: every call returns its answer, no connection refused, no new initialize`, async () => {
  const { clients, calls } = await callsWaiting();
  const before = servingPid();
  wire.refused = 0;
  cli(["restart"]);
  await until(() => !alive(before) && servingPid() !== before, "the next process took over", 30_000);
  // Every call resumed on the next process: its ask shows the agent waiting again.
  await until(async () => (await person.snapshot()).open.filter((a) => calls.some((c) => c.askId === a.id)).every((a) => a.waiting), "every call resumed", 30_000);
  table("planned restart", await answered(calls));
  expect(wire).toEqual({ refused: 0, initializes: 0 });
  expect(log).toContain("Planned restart: handed over to process");
  await Promise.all(clients.map((c) => c.close()));
}, 240_000);

test(`a crash (kill -9) with the relay back within 2 s while ${PER_CLIENT} calls of each client wait: every call returns its answer, no new initialize`, async () => {
  const { clients, calls } = await callsWaiting();
  wire.refused = 0;
  const crashedAt = performance.now();
  process.kill(servingPid(), "SIGKILL");
  await serve();
  const downMs = performance.now() - crashedAt;
  console.log(`crash: relay back after ${downMs.toFixed(0)} ms; ${wire.refused} connections refused meanwhile`);
  table("crash", await answered(calls));
  expect(wire.initializes).toBe(0);
  await Promise.all(clients.map((c) => c.close()));
}, 240_000);
