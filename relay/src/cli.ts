#!/usr/bin/env bun
// `loopback serve` runs the relay; `loopback token …` manages tokens in the same store (the data
// directory's SQLite file, or the PostgreSQL database of LOOPBACK_DATABASE_URL), also while relays
// run (SQLite in WAL mode lets both write). Every command is a row of COMMANDS: its words, its flags
// (parsed strictly by node:util's parseArgs, so a mistyped flag is refused, never ignored) and what it does.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { userInfo } from "node:os";
import { configFromEnv, type Config } from "./config.ts";
import { DEFAULT_SPACE, Gate } from "./auth/gate.ts";
import { Clock } from "./clock.ts";
import { openStore } from "./storage/open-store.ts";
import type { Store } from "./storage/store.ts";
import { startServer, type Running } from "./server.ts";
import { WEB_INBOX_DIR } from "./http/web-inbox.ts";
import { approveHook } from "./cli/approve-hook.ts";
import { buildStamp } from "./build-stamp.ts";
import { SHIPPED, VERSION, cliCommand, serveCommand } from "./shipped.ts";
import { backup } from "./cli/backup.ts";
import { restore } from "./cli/restore.ts";
import { prune } from "./cli/prune.ts";
import { leaving, predecessorLetGo, restartOnSignal, runningPid, serving } from "./planned-restart.ts";
import { portInUse } from "./port-in-use.ts";

type Flags = Record<string, { type: "string" | "boolean"; short?: string; value?: string; help: string }>;
type Values = Record<string, string | boolean | undefined>;

interface Command {
  /** Its arguments after the command's words, as the usage shows them. */
  args?: string;
  summary: string;
  flags: Flags;
  /** How many positional arguments it takes. */
  positionals?: number;
  run(values: Values, positionals: string[]): Promise<void>;
}

/** Where the store is: every command that opens it takes these. */
const STORE_FLAGS: Flags = {
  data: { type: "string", value: "DIR", help: "the data directory of the SQLite store (LOOPBACK_DATA, default ./.loopback)" },
};

const COMMANDS: Record<string, Command> = {
  serve: {
    summary: "run the relay (configured by LOOPBACK_* variables; flags override them)",
    flags: {
      port: { type: "string", value: "PORT", help: "the port to listen on (LOOPBACK_PORT, default 8370)" },
      host: { type: "string", value: "HOST", help: "the address to listen on (LOOPBACK_HOST, default 127.0.0.1)" },
      ...STORE_FLAGS,
    },
    run: (values) => serve(configFrom(values)),
  },
  restart: {
    summary: "restart the running relay without closing its port (it gets SIGHUP): for upgrades and new settings",
    flags: STORE_FLAGS,
    run: (values) => restart(configFrom(values)),
  },
  "token create": {
    summary: "mint a token; it is printed alone on the last line",
    flags: {
      person: { type: "string", value: "NAME", help: "whose token it is (created when no one has that exact name)" },
      agent: { type: "boolean", help: "a token for an agent (MCP) instead of the person's own (the inbox)" },
      space: { type: "string", value: "NAME", help: `the space (default "${DEFAULT_SPACE}")` },
      ...STORE_FLAGS,
    },
    run: (values) => withGate(values, (gate, config) => tokenCreate(gate, config, values)),
  },
  "token list": {
    summary: "list tokens (never the tokens themselves)",
    flags: STORE_FLAGS,
    run: (values) => withGate(values, tokenList),
  },
  "token revoke": {
    args: "TOKEN_ID",
    summary: "revoke a token by the id `token list` shows (its push devices go too)",
    flags: STORE_FLAGS,
    positionals: 1,
    run: (values, [tokenId]) => withGate(values, (gate) => tokenRevoke(gate, tokenId)),
  },
  "approve-hook": {
    summary: "Claude Code's PermissionRequest hook: asks the person in the inbox and prints their decision (LOOPBACK_URL; LOOPBACK_TOKEN, an agent token)",
    flags: {},
    run: () => approveHookCommand(),
  },
  "device list": {
    summary: "list the devices pushed to (never their endpoints)",
    flags: STORE_FLAGS,
    run: (values) => withStore(values, deviceList),
  },
  "device remove": {
    args: "DEVICE_ID",
    summary: "stop pushing to a device by the id `device list` shows",
    flags: STORE_FLAGS,
    positionals: 1,
    run: (values, [id]) => withStore(values, (store) => deviceRemove(store, id!)),
  },
  backup: {
    args: "FILE",
    summary: "a consistent copy of the SQLite database, taken while the relay runs",
    flags: STORE_FLAGS,
    positionals: 1,
    run: async (values, [file]) => backup(file!, configFrom(values)),
  },
  restore: {
    args: "FILE",
    summary: "put a backup in place of the database (stop the relay first)",
    flags: STORE_FLAGS,
    positionals: 1,
    run: async (values, [file]) => restore(file!, configFrom(values)),
  },
  prune: {
    summary: "delete closed asks past LOOPBACK_RETENTION_DAYS now (relays do it daily)",
    flags: STORE_FLAGS,
    run: (values) => prune(configFrom(values)),
  },
};

const HELP_FLAG: Flags = { help: { type: "boolean", short: "h", help: "show this help" } };

function usage(): string {
  const lines = [`loopback ${VERSION} — the relay between coding agents and their person`, "", `Usage: ${cliCommand()} COMMAND [FLAGS]`, ""];
  for (const [words, command] of Object.entries(COMMANDS)) {
    lines.push(`  ${[words, command.args].filter(Boolean).join(" ").padEnd(22)}  ${command.summary}`);
  }
  lines.push("", `  ${"--help, -h".padEnd(22)}  this help (or a command's: \`token create --help\`)`, `  ${"--version, -V".padEnd(22)}  the version and build`, "", "Every LOOPBACK_* setting: the README's Configuration section.");
  return lines.join("\n");
}

function commandUsage(words: string, command: Command): string {
  const lines = [`Usage: ${cliCommand()} ${[words, command.args].filter(Boolean).join(" ")} [FLAGS]`, "", command.summary, ""];
  for (const [name, flag] of Object.entries({ ...command.flags, ...HELP_FLAG })) {
    const shown = `--${name}${flag.value ? ` ${flag.value}` : ""}${flag.short ? `, -${flag.short}` : ""}`;
    lines.push(`  ${shown.padEnd(22)}  ${flag.help}`);
  }
  return lines.join("\n");
}

/** The configuration of the environment, with what the flags say instead. */
function configFrom(values: Values): Config {
  const env = { ...process.env };
  if (typeof values.port === "string") {
    if (!/^\d{1,5}$/.test(values.port)) throw new Error(`--port must be a port number (0–65535), not "${values.port}"`);
    env.LOOPBACK_PORT = values.port;
  }
  if (typeof values.host === "string") env.LOOPBACK_HOST = values.host;
  if (typeof values.data === "string") env.LOOPBACK_DATA = values.data;
  return configFromEnv(env);
}

/** The address a relay on this data directory last said it is reachable at, kept for `token create` to print. */
const PUBLIC_URL_FILE = "public-url";

function mcpLines(publicUrl: string, agentToken: string): string {
  const url = `${publicUrl}/mcp`;
  return [
    `  Claude Code:  claude mcp add -s user --transport http loopback ${url} --header "Authorization: Bearer ${agentToken}"`,
    `  Codex:        export LOOPBACK_TOKEN=${agentToken}`,
    `                and in ~/.codex/config.toml:`,
    `                  [mcp_servers.loopback]`,
    `                  url = "${url}"`,
    `                  bearer_token_env_var = "LOOPBACK_TOKEN"`,
  ].join("\n");
}

/** A fresh checkout builds the web inbox on first start; a shipped build carries it. */
function ensureWebInbox(): void {
  if (SHIPPED !== "clone" || process.env.LOOPBACK_WEB_BUILD === "off" || existsSync(join(WEB_INBOX_DIR, "index.html"))) return;
  console.log("Building the web inbox (first start only)…");
  const built = Bun.spawnSync(["npm", "run", "build:web", "-w", "extension"], { cwd: resolve(import.meta.dir, "../.."), stdout: "ignore", stderr: "pipe" });
  if (built.exitCode !== 0) console.error(`Could not build the web inbox; /inbox/ will say so until \`npm run build\` works:\n${built.stderr.toString().slice(-2000)}`);
}

async function serve(config: Config): Promise<void> {
  const gate = predecessorLetGo();
  // One relay per SQLite file (replicas share a PostgreSQL database, each with its own process).
  const other = gate || config.databaseUrl ? undefined : runningPid(config.dataDir);
  if (other) fail(`A relay (process ${other}) already serves ${config.dataDir}: stop it, or restart it with \`${cliCommand()} restart\`.`);
  const portHeld = () => fail(`Port ${config.port} on ${config.host} is in use (another relay?). Stop what holds it, or choose another port: ${serveCommand()} --port ${config.port + 1} (or LOOPBACK_PORT=${config.port + 1})`);
  if (!gate && (await portInUse(config.host, config.port))) portHeld();
  ensureWebInbox();
  let running: Running;
  try {
    running = await startServer(config, { publicUrlFromEnv: Boolean(process.env.LOOPBACK_PUBLIC_URL), gate });
  } catch (e) {
    if ((e as { code?: string }).code === "EADDRINUSE") portHeld();
    throw e;
  }
  // Minted only once the port is held: a start that cannot listen leaves the store as it found it,
  // so the next start still prints the first tokens. Nobody holds them before they are printed.
  const firstStart = await mintFirstTokens(running);
  if (!config.databaseUrl) writeFileSync(join(config.dataDir, PUBLIC_URL_FILE), `${config.publicUrl}\n`, { mode: 0o600 });
  const lines = [`Loopback relay on ${running.url} (${config.databaseUrl ? `PostgreSQL at ${redacted(config.databaseUrl)}` : `data in ${config.dataDir}`})`];
  if (firstStart) {
    const { person, own, agent } = firstStart;
    const extension = SHIPPED === "clone" ? "`npm run build`, load extension/.output/chrome-mv3 (see README), then in its options" : "in the Loopback extension's options";
    lines.push(
      "",
      `First start: created the space "${DEFAULT_SPACE}" and ${person}. These tokens are shown only now.`,
      "",
      `Your token (for the inbox):     ${own}`,
      `  Web inbox:   open ${config.publicUrl}/inbox/ and paste it.`,
      `  Extension:   ${extension} enter ${config.publicUrl} and the token.`,
      "",
      `An agent token (for MCP):       ${agent}`,
      mcpLines(config.publicUrl, agent),
      "",
      `More tokens: ${cliCommand()} token create --person ${person} --agent`,
      "",
    );
  }
  // One write: whoever reads the log for where the relay listens finds the first tokens with it.
  console.log(lines.join("\n"));
  // A relay on PostgreSQL keeps nothing in the data directory: no pid file (`kill -HUP` restarts it).
  const pidDir = config.databaseUrl ? undefined : config.dataDir;
  serving(pidDir);
  restartOnSignal(running, pidDir);
  // Once: a terminal's Ctrl+C can reach the relay twice (from it and from a launcher such as npx).
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= running.stop().then(() => {
      leaving(pidDir);
      process.exit(0);
    }));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

async function mintFirstTokens({ relay }: Running): Promise<{ person: string; own: string; agent: string } | undefined> {
  if (!(await relay.gate.isEmpty())) return undefined;
  const person = process.env.LOOPBACK_FIRST_PERSON || safeUserName();
  const own = await relay.gate.createToken({ person, space: DEFAULT_SPACE });
  const agent = await relay.gate.createToken({ person, space: DEFAULT_SPACE, agent: true });
  return { person, own: own.token, agent: agent.token };
}

/** `loopback restart`: the running relay starts its next process and hands over to it (planned-restart.ts). */
async function restart(config: Config): Promise<void> {
  const pid = runningPid(config.dataDir);
  if (!pid) fail(`No relay runs on ${config.dataDir}.`);
  process.kill(pid, "SIGHUP");
  console.log(`Asked relay ${pid} to restart; it hands over to its next process without closing the port.`);
}

function safeUserName(): string {
  try {
    const name = process.env.USER || userInfo().username;
    return name && name !== "unknown" ? name : "me";
  } catch {
    return "me";
  }
}

/** A database URL fit to print: without its password. */
function redacted(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
}

/** Where agents reach the relay: its public URL when set, else where a relay on this data directory last listened. */
function reachableAt(config: Config): string {
  if (process.env.LOOPBACK_PUBLIC_URL || config.databaseUrl) return config.publicUrl;
  try {
    return readFileSync(join(config.dataDir, PUBLIC_URL_FILE), "utf8").trim() || config.publicUrl;
  } catch {
    return config.publicUrl;
  }
}

async function withGate(values: Values, run: (gate: Gate, config: Config) => Promise<void>): Promise<void> {
  const config = configFrom(values);
  const store = await openStore(config);
  try {
    await run(new Gate(store, new Clock()), config);
  } finally {
    await store.close();
  }
}

async function tokenCreate(gate: Gate, config: Config, values: Values): Promise<void> {
  if (typeof values.person !== "string" || !values.person) fail(`token create needs --person NAME (see \`${cliCommand()} token create --help\`)`);
  const agent = values.agent === true;
  const { token, tokenId, caller, created } = await gate.createToken({ person: values.person, space: values.space as string | undefined, agent });
  // Names are matched exactly: a typo or another case is a new person, who sees none of the asks.
  if (created.space) console.log(`Created space "${caller.spaceName}".`);
  if (created.person) {
    console.log(`Created person ${caller.person.name} in space "${caller.spaceName}" (no one of that exact name was there; names match exactly, case included).`);
  }
  console.log(`Created ${caller.tokenKind} token ${tokenId} for ${caller.person.name} in space "${caller.spaceName}". It is shown only now:`);
  if (agent) console.log(mcpLines(reachableAt(config), token));
  console.log(token);
}

async function tokenList(gate: Gate): Promise<void> {
  for (const t of await gate.listTokens()) {
    console.log(`${t.id}  ${t.kind.padEnd(6)}  ${t.space}/${t.person}  created ${t.createdAt}${t.revokedAt ? `  revoked ${t.revokedAt}` : ""}`);
  }
}

async function tokenRevoke(gate: Gate, tokenId: string): Promise<void> {
  if (!(await gate.revoke(tokenId))) fail(`No active token ${tokenId}`);
  console.log(`Revoked ${tokenId}`);
}

/** `device list` and `device remove`: the operator's view of whom the relay pushes to. */
async function withStore(values: Values, run: (store: Store) => Promise<void>): Promise<void> {
  const store = await openStore(configFrom(values));
  try {
    await run(store);
  } finally {
    await store.close();
  }
}

async function deviceList(store: Store): Promise<void> {
  for (const d of await store.push.listDevices()) {
    const pushed = d.lastPushAt ? `  pushed ${d.lastPushAt}` : "";
    console.log(`${d.id}  ${d.space}/${d.person}  "${d.name}"  ${new URL(d.endpoint).host}  token ${d.tokenId ?? "-"}  created ${d.createdAt}${pushed}`);
  }
}

async function deviceRemove(store: Store, id: string): Promise<void> {
  if (!(await store.push.forgetDevice(id))) fail(`No device ${id}`);
  console.log(`Removed ${id}`);
}

async function approveHookCommand(): Promise<void> {
  const out = await approveHook({ stdin: await Bun.stdin.text(), env: process.env, warn: (line) => console.error(line) });
  if (out) console.log(out);
}

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

/** The command the arguments name (the longest run of words that is one), and the arguments after it. */
function find(argv: string[]): { words: string; command: Command; rest: string[] } | undefined {
  for (let n = Math.min(argv.length, 2); n > 0; n--) {
    const words = argv.slice(0, n).join(" ");
    if (COMMANDS[words]) return { words, command: COMMANDS[words], rest: argv.slice(n) };
  }
  return undefined;
}

async function main(argv: string[]): Promise<void> {
  const [first] = argv;
  if (first === "--help" || first === "-h" || first === "help") return console.log(usage());
  if (first === "--version" || first === "-V") return console.log(`loopback ${VERSION} (build ${buildStamp()})`);
  const found = find(argv);
  if (!found) {
    const group = Object.keys(COMMANDS).some((w) => w.startsWith(`${first} `));
    fail(first === undefined ? usage() : `Unknown command \`${argv.slice(0, group ? 2 : 1).join(" ")}\`.\n\n${usage()}`);
  }
  const { words, command, rest } = found;
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, options: { ...command.flags, ...HELP_FLAG }, allowPositionals: true, strict: true });
  } catch (e) {
    // parseArgs names the flag it refused; its advice about `--` is beside the point here.
    const why = e instanceof Error ? e.message.split(". ")[0] : String(e);
    fail(`${cliCommand()} ${words}: ${why}. See \`${cliCommand()} ${words} --help\`.`);
  }
  if (parsed.values.help) return console.log(commandUsage(words, command));
  const wanted = command.positionals ?? 0;
  if (parsed.positionals.length !== wanted) {
    const what = parsed.positionals.length > wanted ? `does not take \`${parsed.positionals.slice(wanted).join(" ")}\`` : `needs ${command.args}`;
    fail(`${cliCommand()} ${words} ${what}. See \`${cliCommand()} ${words} --help\`.`);
  }
  await command.run(parsed.values, parsed.positionals);
}

try {
  await main(process.argv.slice(2));
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
}
