// The relay as people get it without a clone: the single executable `npm run build` makes, and the
// npm package installed from its packed tarball into an empty folder. Each starts the two-command
// way (start, then an agent asks), in a folder with nothing of the repository around it, and a
// person's reply through the web inbox's API returns from the agent's tool call.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import relayPackage from "../../relay/package.json" with { type: "json" };
import { Agent, structured } from "../support/agent.ts";
import { Person } from "../support/person.ts";
import { ROOT, freePort, freshDatabase } from "../support/relay-process.ts";

const BINARY = join(ROOT, "dist/loopback");
const PACKAGE = join(ROOT, "dist/package");
const dirs: string[] = [];
const running: Subprocess[] = [];

beforeAll(() => {
  if (!existsSync(BINARY) || !existsSync(join(PACKAGE, "package.json"))) throw new Error("Run `npm run build` first: it makes dist/loopback and dist/package.");
});
afterAll(async () => {
  for (const proc of running) {
    proc.kill("SIGTERM");
    await proc.exited;
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function emptyDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "loopback-ship-"));
  dirs.push(dir);
  return dir;
}

/** A shell's environment without LOOPBACK_* settings, and without the repository's node_modules/.bin on PATH. */
function plainEnv(extra: Record<string, string> = {}): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, LOOPBACK_FIRST_PERSON: "ada", ...extra };
  for (const name of Object.keys(env)) if (name.startsWith("LOOPBACK_") && name !== "LOOPBACK_FIRST_PERSON" && !(name in extra)) delete env[name];
  env.PATH = (env.PATH ?? "").split(":").filter((p) => !p.startsWith(ROOT)).join(":");
  return env;
}

function run(cmd: string[], cwd: string, env = plainEnv()) {
  const proc = Bun.spawnSync(cmd, { cwd, env, stdout: "pipe", stderr: "pipe" });
  return { exitCode: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

/** Starts a relay and waits for its first-start lines; returns its address, log and tokens. */
async function start(cmd: string[], cwd: string, env = plainEnv()) {
  const port = await freePort();
  const proc = Bun.spawn([...cmd, "serve", "--port", String(port)], { cwd, env, stdout: "pipe", stderr: "pipe" });
  running.push(proc);
  let log = "";
  for (const stream of [proc.stdout, proc.stderr] as ReadableStream<Uint8Array>[]) {
    void (async () => {
      for await (const chunk of stream) log += new TextDecoder().decode(chunk);
    })();
  }
  const deadline = Date.now() + 20_000;
  while (!/More tokens: .*\n/.test(log)) {
    if (proc.exitCode !== null) throw new Error(`${cmd.join(" ")} exited (${proc.exitCode}):\n${log}`);
    if (Date.now() > deadline) throw new Error(`${cmd.join(" ")} did not start:\n${log}`);
    await Bun.sleep(25);
  }
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    proc,
    log: () => log,
    own: /Your token \(for the inbox\):\s+(\S+)/.exec(log)![1],
    agent: /An agent token \(for MCP\):\s+(\S+)/.exec(log)![1],
  };
}

/** An SDK client's question, answered by the person through the REST reply route the web inbox uses. */
async function answerAQuestion(url: string, own: string, agentToken: string): Promise<void> {
  const person = new Person(url, own);
  const agent = await Agent.connect(url, agentToken);
  try {
    const call = agent.call("ask_question", { question: "Ship it?", project: "ship", options: [{ label: "Yes" }, { label: "No" }] });
    let askId: string | undefined;
    const deadline = Date.now() + 10_000;
    while (!askId && Date.now() < deadline) {
      askId = (await person.snapshot()).open[0]?.id;
      if (!askId) await Bun.sleep(25);
    }
    expect((await person.reply(askId!, { outcome: "answered", selected: ["Yes"] })).status).toBe(200);
    expect(structured(await call)).toEqual({ askId, reply: { outcome: "answered", selected: ["Yes"] } });
  } finally {
    await agent.close();
  }
}

async function servesTheWebInbox(url: string): Promise<void> {
  const page = await fetch(`${url}/inbox/`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("<title>");
}

test("the single executable runs alone: first start, the web inbox, and a question answered through it", async () => {
  const dir = emptyDir();
  const version = run([BINARY, "--version"], dir);
  expect(version.stdout).toStartWith(`loopback ${relayPackage.version} (build `);
  const relay = await start([BINARY], dir);
  expect(relay.log()).toContain(`data in ${join(dir, ".loopback")}`);
  expect(relay.log()).toContain(`More tokens: ${BINARY} token create --person ada --agent`);
  // Its build is when it was built, the same in every answer, whatever the files around it.
  const stamp = /\(build (.+)\)/.exec(version.stdout)![1];
  expect((await fetch(`${relay.url}/healthz`)).headers.get("loopback-build")).toBe(stamp);
  await servesTheWebInbox(relay.url);
  await answerAQuestion(relay.url, relay.own, relay.agent);
  expect(readdirSync(dir)).toEqual([".loopback"]);
}, 30_000);

test("the single executable runs on PostgreSQL with its embedded migrations", async () => {
  const dir = emptyDir();
  const env = plainEnv({ LOOPBACK_DATABASE_URL: await freshDatabase() });
  const relay = await start([BINARY], dir, env);
  expect(relay.log()).toContain("PostgreSQL at");
  await answerAQuestion(relay.url, relay.own, relay.agent);
}, 30_000);

test("the package installs from its tarball into an empty folder, and npx starts it", async () => {
  const packed = run(["npm", "pack", "--json", "--pack-destination", emptyDir()], PACKAGE);
  expect(packed.exitCode).toBe(0);
  const [{ filename, files }] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  expect(files.map((f) => f.path)).toContain("web/index.html");
  const tarball = join(dirs.at(-1)!, filename);

  const dir = emptyDir();
  const installed = run(["npm", "install", "--prefer-offline", "--no-audit", "--no-fund", tarball], dir);
  expect([installed.exitCode, installed.stderr]).toEqual([0, expect.any(String)]);
  const help = run(["npx", "--no-install", "loopback-relay", "--help"], dir);
  expect([help.exitCode, help.stdout]).toEqual([0, expect.stringContaining("Usage: npx loopback-relay COMMAND")]);

  // Started by its bin (what npx runs), so that this test can stop it with a signal.
  const relay = await start([join(dir, "node_modules/.bin/loopback-relay")], dir);
  expect(relay.log()).toContain("More tokens: npx loopback-relay token create --person ada --agent");
  await servesTheWebInbox(relay.url);
  await answerAQuestion(relay.url, relay.own, relay.agent);
  const agentLines = run(["npx", "--no-install", "loopback-relay", "token", "create", "--person", "ada", "--agent"], dir);
  expect(agentLines.stdout).toContain(`${relay.url}/mcp`);

  relay.proc.kill("SIGTERM");
  expect(await relay.proc.exited).toBe(0);
}, 90_000);
