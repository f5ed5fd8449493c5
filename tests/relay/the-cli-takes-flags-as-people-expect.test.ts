// The CLI as people run it from a clone (`npm run relay -- …`, `npm run loopback -- …`): help,
// version, flags that win over the environment, refused typos, and a first start that cannot go wrong.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import relayPackage from "../../relay/package.json" with { type: "json" };
import { Person } from "../support/person.ts";
import { ROOT, freePort } from "../support/relay-process.ts";

const CLI = join(ROOT, "relay/src/cli.ts");
const dirs: string[] = [];
const running: Subprocess[] = [];
afterAll(async () => {
  for (const proc of running) {
    proc.kill("SIGTERM");
    await proc.exited;
  }
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "loopback-cli-"));
  dirs.push(dir);
  return dir;
}

/** The environment of a shell with no LOOPBACK_* setting: what the flags say is all the relay knows. */
function plainEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, LOOPBACK_FIRST_PERSON: "first", LOOPBACK_WEB_BUILD: "off" };
  for (const name of Object.keys(env)) if (name.startsWith("LOOPBACK_") && !["LOOPBACK_FIRST_PERSON", "LOOPBACK_WEB_BUILD"].includes(name)) delete env[name];
  return env;
}

function cli(args: string[], cwd = tempDir()) {
  const proc = Bun.spawnSync([process.execPath, CLI, ...args], { cwd, env: plainEnv(), stdout: "pipe", stderr: "pipe" });
  return { exitCode: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
}

/** Starts `serve` with these flags and waits until it answers at `url`; returns its log so far. */
async function serve(args: string[], url: string): Promise<{ log: () => string; proc: Subprocess }> {
  const proc = Bun.spawn([process.execPath, CLI, "serve", ...args], { cwd: tempDir(), env: plainEnv(), stdout: "pipe", stderr: "pipe" });
  running.push(proc);
  let log = "";
  for (const stream of [proc.stdout, proc.stderr] as ReadableStream<Uint8Array>[]) {
    void (async () => {
      for await (const chunk of stream) log += new TextDecoder().decode(chunk);
    })();
  }
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`relay exited (${proc.exitCode}):\n${log}`);
    const res = await fetch(`${url}/api/v1/whoami`).catch(() => null);
    // The first tokens are printed just after the port is held.
    if (res?.status === 401 && log.includes("Loopback relay on")) return { log: () => log, proc };
    await Bun.sleep(25);
  }
  throw new Error(`relay did not start:\n${log}`);
}

test("--help lists every command and exits 0; a command's --help lists its flags", () => {
  const help = cli(["--help"]);
  expect(help.exitCode).toBe(0);
  for (const command of ["serve", "token create", "token list", "token revoke"]) expect(help.stdout).toContain(command);
  expect(help.stdout).toContain("npm run loopback --");
  const serveHelp = cli(["serve", "--help"]);
  expect(serveHelp.exitCode).toBe(0);
  for (const flag of ["--port PORT", "--host HOST", "--data DIR"]) expect(serveHelp.stdout).toContain(flag);
});

test("--version prints the relay's version", () => {
  const out = cli(["--version"]);
  expect(out.exitCode).toBe(0);
  expect(out.stdout).toStartWith(`loopback ${relayPackage.version} (build `);
});

test("an unknown flag or command is refused with exit 2 and a line naming it", () => {
  const flag = cli(["serve", "--prot", "9350"]);
  expect(flag.exitCode).toBe(2);
  expect(flag.stderr.split("\n")[0]).toContain("'--prot'");
  expect(flag.stderr).toContain("serve --help");
  const value = cli(["serve", "--port", "ninety"]);
  expect(value.exitCode).toBe(2);
  expect(value.stderr).toContain('--port must be a port number (0–65535), not "ninety"');
  const command = cli(["sevre"]);
  expect(command.exitCode).toBe(2);
  expect(command.stderr).toContain("Unknown command `sevre`");
  expect(cli(["token", "list", "extra"]).exitCode).toBe(2);
});

test("serve --port, --host and --data are where the relay listens and keeps its data, and token create --agent prints that address", async () => {
  const port = await freePort();
  const data = tempDir();
  const url = `http://127.0.0.1:${port}`;
  const relay = await serve(["--port", String(port), "--host", "127.0.0.1", "--data", data], url);
  expect(relay.log()).toContain(`Loopback relay on ${url} (data in ${data})`);
  const own = /Your token \(for the inbox\):\s+(\S+)/.exec(relay.log())![1];
  expect((await new Person(url, own).api("GET", "/whoami")).status).toBe(200);

  const created = cli(["token", "create", "--person", "first", "--agent", "--data", data]);
  expect(created.exitCode).toBe(0);
  expect(created.stdout).toContain(`claude mcp add --transport http loopback ${url}/mcp`);
  const agent = created.stdout.trimEnd().split("\n").at(-1)!;
  expect((await new Person(url, agent).api("GET", "/whoami")).status).toBe(200);

  // The Codex lines are TOML as written: copied into config.toml, they name the relay's address.
  const lines = created.stdout.split("\n");
  const from = lines.findIndex((l) => l.includes("config.toml:")) + 1;
  const toml = lines.slice(from, from + 3).join("\n");
  expect(Bun.TOML.parse(toml)).toEqual({ mcp_servers: { loopback: { url: `${url}/mcp`, bearer_token_env_var: "LOOPBACK_TOKEN" } } });
  expect(created.stdout).not.toContain(":8370");
});

test("a first start on a busy port mints no token, so the next start prints the first tokens", async () => {
  const data = tempDir();
  const held = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  try {
    const busy = cli(["serve", "--port", String(held.port), "--data", data]);
    expect(busy.exitCode).toBe(2);
    expect(busy.stderr).toContain(`Port ${held.port} on 127.0.0.1 is in use`);
    expect(busy.stderr).toContain(`npm run relay -- --port ${held.port + 1}`);
    expect(busy.stdout).not.toContain("First start");
  } finally {
    held.stop(true);
  }
  expect(cli(["token", "list", "--data", data]).stdout.trim()).toBe("");

  const port = await freePort();
  const relay = await serve(["--port", String(port), "--data", data], `http://127.0.0.1:${port}`);
  expect(relay.log()).toContain("First start");
  expect(relay.log()).toMatch(/Your token \(for the inbox\):\s+lbp_/);
  expect(relay.log()).toContain("More tokens: npm run loopback -- token create --person first --agent");
});
