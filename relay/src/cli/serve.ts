// `loopback serve`: the relay in this process, on the port the configuration names (or the one a
// predecessor hands over in a planned restart, planned-restart.ts), with the first tokens on a first start.
import { existsSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { userInfo } from "node:os";
import type { Config } from "../config.ts";
import { DEFAULT_SPACE } from "../auth/gate.ts";
import { startServer, type Running } from "../server.ts";
import { WEB_INBOX_DIR } from "../http/web-inbox.ts";
import { SHIPPED, cliCommand, serveCommand } from "../shipped.ts";
import { leaving, predecessorLetGo, restartOnSignal, runningPid, serving } from "../planned-restart.ts";
import { portInUse } from "../port-in-use.ts";
import { mcpLines, PUBLIC_URL_FILE } from "./agent-setup.ts";
import { fail } from "./fail.ts";

/** A fresh checkout builds the web inbox on first start; a shipped build carries it. */
function ensureWebInbox(): void {
  if (SHIPPED !== "clone" || process.env.LOOPBACK_WEB_BUILD === "off" || existsSync(join(WEB_INBOX_DIR, "index.html"))) return;
  console.log("Building the web inbox (first start only)…");
  const built = Bun.spawnSync(["npm", "run", "build:web", "-w", "extension"], { cwd: resolve(import.meta.dir, "../../.."), stdout: "ignore", stderr: "pipe" });
  if (built.exitCode !== 0) console.error(`Could not build the web inbox; /inbox/ will say so until \`npm run build\` works:\n${built.stderr.toString().slice(-2000)}`);
}

export async function serve(config: Config): Promise<void> {
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
