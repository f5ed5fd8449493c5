#!/usr/bin/env bun
// `loopback serve` runs the relay; `loopback token …` manages tokens in the same store (the data
// directory's SQLite file, or the PostgreSQL database of LOOPBACK_DATABASE_URL), also while relays
// run (SQLite in WAL mode lets both write). Every command is a row of COMMANDS: its words, its flags
// (parsed strictly by node:util's parseArgs, so a mistyped flag is refused, never ignored) and what it does.
// A command imports what it runs only when it runs: `token create` loads the store, not the server, the MCP
// SDK, web push or the metrics (what-loads.test.ts holds it), which would take each command ~0.3 s of processor.
import { parseArgs } from "node:util";
import { configFromEnv, type Config } from "./config.ts";
import { DEFAULT_SPACE } from "./auth/gate.ts";
import { buildStamp } from "./build-stamp.ts";
import { VERSION, cliCommand } from "./shipped.ts";
import { fail } from "./cli/fail.ts";

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
    run: async (values) => (await import("./cli/serve.ts")).serve(configFrom(values)),
  },
  restart: {
    summary: "restart the running relay without closing its port (it gets SIGHUP): for upgrades and new settings",
    flags: STORE_FLAGS,
    run: async (values) => (await import("./cli/restart.ts")).restart(configFrom(values)),
  },
  "token create": {
    summary: "mint a token; it is printed alone on the last line",
    flags: {
      person: { type: "string", value: "NAME", help: "whose token it is (created when no one has that exact name)" },
      agent: { type: "boolean", help: "a token for an agent (MCP) instead of the person's own (the inbox)" },
      space: { type: "string", value: "NAME", help: `the space (default "${DEFAULT_SPACE}")` },
      ...STORE_FLAGS,
    },
    run: async (values) => (await import("./cli/tokens.ts")).tokenCreate(configFrom(values), values),
  },
  "token list": {
    summary: "list tokens (never the tokens themselves)",
    flags: STORE_FLAGS,
    run: async (values) => (await import("./cli/tokens.ts")).tokenList(configFrom(values)),
  },
  "token revoke": {
    args: "TOKEN_ID",
    summary: "revoke a token by the id `token list` shows (its push devices go too)",
    flags: STORE_FLAGS,
    positionals: 1,
    run: async (values, [tokenId]) => (await import("./cli/tokens.ts")).tokenRevoke(configFrom(values), tokenId!),
  },
  "approve-hook": {
    summary: "Claude Code's PermissionRequest hook: asks the person in the inbox and prints their decision (LOOPBACK_URL; LOOPBACK_TOKEN, an agent token)",
    flags: {},
    run: async () => {
      const { approveHook } = await import("./cli/approve-hook.ts");
      const out = await approveHook({ stdin: await Bun.stdin.text(), env: process.env, warn: (line) => console.error(line) });
      if (out) console.log(out);
    },
  },
  "device list": {
    summary: "list the devices pushed to (never their endpoints)",
    flags: STORE_FLAGS,
    run: async (values) => (await import("./cli/devices.ts")).deviceList(configFrom(values)),
  },
  "device remove": {
    args: "DEVICE_ID",
    summary: "stop pushing to a device by the id `device list` shows",
    flags: STORE_FLAGS,
    positionals: 1,
    run: async (values, [id]) => (await import("./cli/devices.ts")).deviceRemove(configFrom(values), id!),
  },
  backup: {
    args: "FILE",
    summary: "a consistent copy of the SQLite database, taken while the relay runs",
    flags: STORE_FLAGS,
    positionals: 1,
    run: async (values, [file]) => (await import("./cli/backup.ts")).backup(file!, configFrom(values)),
  },
  restore: {
    args: "FILE",
    summary: "put a backup in place of the database (stop the relay first)",
    flags: STORE_FLAGS,
    positionals: 1,
    run: async (values, [file]) => (await import("./cli/restore.ts")).restore(file!, configFrom(values)),
  },
  prune: {
    summary: "delete closed asks past LOOPBACK_RETENTION_DAYS now (relays do it daily)",
    flags: STORE_FLAGS,
    run: async (values) => (await import("./cli/prune.ts")).prune(configFrom(values)),
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
