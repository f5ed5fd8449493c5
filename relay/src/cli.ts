#!/usr/bin/env bun
// `loopback serve` runs the relay; `loopback token …` manages tokens in the same store (the data
// directory's SQLite file, or the PostgreSQL database of LOOPBACK_DATABASE_URL), also while relays
// run (SQLite in WAL mode lets both write).
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { userInfo } from "node:os";
import { configFromEnv, type Config } from "./config.ts";
import { DEFAULT_SPACE, Gate } from "./auth/gate.ts";
import { Clock } from "./clock.ts";
import { openStore } from "./storage/open-store.ts";
import { startServer, type Running } from "./server.ts";
import { WEB_INBOX_DIR } from "./http/web-inbox.ts";
import { approveHook } from "./hook/approve-hook.ts";

const USAGE = `loopback — the relay between coding agents and their person

  loopback serve                          run the relay (configured by LOOPBACK_* variables)
  loopback token create --person NAME [--agent] [--space NAME]
                                          mint a token; it is printed alone on the last line
  loopback token list                     list tokens (never the tokens themselves)
  loopback token revoke TOKEN_ID          revoke a token by the id \`token list\` shows
  loopback approve-hook                   Claude Code's PermissionRequest hook: asks the person in the
                                          inbox (LOOPBACK_URL, LOOPBACK_TOKEN: an agent token)`;

function mcpLines(config: Config, agentToken: string): string {
  const url = `${config.publicUrl}/mcp`;
  return [
    `  Claude Code:  claude mcp add --transport http loopback ${url} --header "Authorization: Bearer ${agentToken}"`,
    `  Codex:        export LOOPBACK_TOKEN=${agentToken}`,
    `                and in ~/.codex/config.toml:  [mcp_servers.loopback]  url = "${url}"  bearer_token_env_var = "LOOPBACK_TOKEN"`,
  ].join("\n");
}

/** The web inbox is built from the extension's sources; a fresh checkout builds it on first start. */
function ensureWebInbox(): void {
  if (process.env.LOOPBACK_WEB_BUILD === "off" || existsSync(join(WEB_INBOX_DIR, "index.html"))) return;
  console.log("Building the web inbox (first start only)…");
  const built = Bun.spawnSync(["npm", "run", "build:web", "-w", "extension"], { cwd: resolve(import.meta.dir, "../.."), stdout: "ignore", stderr: "pipe" });
  if (built.exitCode !== 0) console.error(`Could not build the web inbox; /inbox/ will say so until \`npm run build\` works:\n${built.stderr.toString().slice(-2000)}`);
}

async function serve(): Promise<void> {
  const config = configFromEnv();
  ensureWebInbox();
  let firstStart: { person: string; own: string; agent: string } | undefined;
  let running: Running;
  try {
    running = await startServer(config, {
      publicUrlFromEnv: Boolean(process.env.LOOPBACK_PUBLIC_URL),
      // Minted before the first request is taken: whoever reads the log can use them at once.
      beforeListening: async (relay) => {
        if (!(await relay.gate.isEmpty())) return;
        const person = process.env.LOOPBACK_FIRST_PERSON || safeUserName();
        const own = await relay.gate.createToken({ person, space: DEFAULT_SPACE });
        const agent = await relay.gate.createToken({ person, space: DEFAULT_SPACE, agent: true });
        firstStart = { person, own: own.token, agent: agent.token };
      },
    });
  } catch (e) {
    if ((e as { code?: string }).code === "EADDRINUSE") {
      fail(`Port ${config.port} on ${config.host} is in use (another relay?). Stop what holds it, or choose another port: LOOPBACK_PORT=${config.port + 1} npm run relay`);
    }
    throw e;
  }
  console.log(`Loopback relay on ${running.url} (${config.databaseUrl ? `PostgreSQL at ${redacted(config.databaseUrl)}` : `data in ${config.dataDir}`})`);
  if (firstStart) {
    const { person, own, agent } = firstStart;
    console.log(
      [
        "",
        `First start: created the space "${DEFAULT_SPACE}" and ${person}. These tokens are shown only now.`,
        "",
        `Your token (for the inbox):     ${own}`,
        `  Web inbox:   open ${config.publicUrl}/inbox/ and paste it.`,
        `  Extension:   \`npm run build\`, load extension/.output/chrome-mv3 (see README), then in its options enter ${config.publicUrl} and the token.`,
        "",
        `An agent token (for MCP):       ${agent}`,
        mcpLines(config, agent),
        "",
        `More tokens: npm run loopback -- token create --person ${person} --agent`,
        "",
      ].join("\n"),
    );
  }
  const stop = async () => {
    await running.stop();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
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

async function token(args: string[]): Promise<void> {
  const [verb, ...rest] = args;
  const config = configFromEnv();
  const store = await openStore(config);
  try {
    await tokenCommand(verb, rest, config, new Gate(store, new Clock()));
  } finally {
    await store.close();
  }
}

async function tokenCommand(verb: string | undefined, rest: string[], config: Config, gate: Gate): Promise<void> {
  if (verb === "create") {
    const { values } = parseArgs({ args: rest, options: { person: { type: "string" }, agent: { type: "boolean" }, space: { type: "string" } } });
    if (!values.person) fail("token create needs --person NAME");
    const { token, tokenId, caller, created } = await gate.createToken({ person: values.person!, space: values.space, agent: values.agent });
    // Names are matched exactly: a typo or another case is a new person, who sees none of the asks.
    if (created.space) console.log(`Created space "${caller.spaceName}".`);
    if (created.person) {
      console.log(`Created person ${caller.person.name} in space "${caller.spaceName}" (no one of that exact name was there; names match exactly, case included).`);
    }
    console.log(`Created ${caller.tokenKind} token ${tokenId} for ${caller.person.name} in space "${caller.spaceName}". It is shown only now:`);
    if (values.agent) console.log(mcpLines(config, token));
    console.log(token);
  } else if (verb === "list") {
    for (const t of await gate.listTokens()) {
      console.log(`${t.id}  ${t.kind.padEnd(6)}  ${t.space}/${t.person}  created ${t.createdAt}${t.revokedAt ? `  revoked ${t.revokedAt}` : ""}`);
    }
  } else if (verb === "revoke") {
    if (!rest[0]) fail("token revoke needs a TOKEN_ID (see `token list`)");
    if (!(await gate.revoke(rest[0]))) fail(`No active token ${rest[0]}`);
    console.log(`Revoked ${rest[0]}`);
  } else {
    fail(USAGE);
  }
}

async function approveHookCommand(): Promise<void> {
  const out = await approveHook({ stdin: await Bun.stdin.text(), env: process.env, warn: (line) => console.error(line) });
  if (out) console.log(out);
}

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const [command, ...args] = process.argv.slice(2);
try {
  if (command === "serve") await serve();
  else if (command === "token") await token(args);
  else if (command === "approve-hook") await approveHookCommand();
  else fail(USAGE);
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
}
