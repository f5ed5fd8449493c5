// A real relay, as people run it: `bun relay/src/cli.ts serve` (or the single executable, see
// RELAY_COMMAND) in its own process, on a free loopback port and a fresh temporary data directory.
// Tokens come from the real CLI.
// `LOOPBACK_TEST_STORE=postgres` runs every relay of a suite on PostgreSQL instead of its SQLite file:
// one server per test process, a new database per relay (`tests/run.ts` runs the relay, MCP and fault
// suites both ways).
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import postgres from "postgres";
import { PostgresServer } from "./postgres.ts";

export const ROOT = resolve(import.meta.dir, "../..");
const CLI = join(ROOT, "relay/src/cli.ts");
/**
 * How a relay and its CLI are run: from the source, as a clone runs them, or, when
 * `LOOPBACK_TEST_RELAY` names it, from the single executable `tests/run.ts` has just built from
 * the same source (the one people install; a start takes half the processor time).
 */
export const RELAY_COMMAND = process.env.LOOPBACK_TEST_RELAY ? [process.env.LOOPBACK_TEST_RELAY] : [process.execPath, CLI];

export const TEST_STORE: "sqlite" | "postgres" = process.env.LOOPBACK_TEST_STORE === "postgres" ? "postgres" : "sqlite";

let testServer: Promise<PostgresServer> | undefined;
let databases = 0;
let template: Promise<string> | undefined;

/** The URL of database `name` on the server `url` points at. */
function databaseAt(url: string, name: string): string {
  const at = new URL(url);
  at.pathname = `/${name}`;
  return at.toString();
}

/**
 * A new database, with the relay's schema and nothing else: on the run's PostgreSQL server when
 * `tests/run.ts` started one (`LOOPBACK_TEST_PG`, a URL of its `postgres` database), else on one this
 * test process starts. It is a copy of one the relay's own CLI migrated once for this test process: a
 * relay on an empty database runs every migration as it starts, which took two thirds of a start on
 * PostgreSQL. The tests of migrating an empty database make theirs without a template
 * (tests/storage, tests/support/replicas.ts, tests/ship).
 */
export async function freshDatabase(): Promise<string> {
  const admin = await testPostgres();
  return newDatabase(admin, "relay", await migratedTemplate(admin));
}

/**
 * The URL of the `postgres` database of the server this test process makes its databases on: the
 * run's (`LOOPBACK_TEST_PG`), else one it starts on first use.
 */
export async function testPostgres(): Promise<string> {
  return process.env.LOOPBACK_TEST_PG ?? (await (testServer ??= new PostgresServer().start())).url("postgres");
}

/**
 * A new database with nothing in it, for relays and stores that migrate it themselves: on the server
 * `admin` (a URL of its `postgres` database) points at, else on this test process's (`testPostgres`).
 */
export async function emptyDatabase(admin?: string): Promise<string> {
  return newDatabase(admin ?? (await testPostgres()), "empty");
}

/** A database named for this process, new on the server `admin` points at (a copy of `from`, or empty): its URL. */
function newDatabase(admin: string, kind: string, from?: string): Promise<string> {
  return createDatabase(admin, `${kind}_${process.pid}_${++databases}`, from);
}

async function createDatabase(admin: string, name: string, from?: string): Promise<string> {
  const sql = postgres(admin, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`create database ${name}${from ? ` template ${from}` : ""}`);
  } finally {
    await sql.end({ timeout: 1 });
  }
  return databaseAt(admin, name);
}

/** The database this test process copies for each relay: made once, and migrated by `loopback token list`, which opens the store as a relay does. */
function migratedTemplate(admin: string): Promise<string> {
  template ??= (async () => {
    const name = `relay_template_${process.pid}`;
    const url = await createDatabase(admin, name);
    const listed = Bun.spawnSync([...RELAY_COMMAND, "token", "list"], { env: { ...process.env, LOOPBACK_DATABASE_URL: url }, stdout: "pipe", stderr: "pipe" });
    if (listed.exitCode !== 0) throw new Error(`migrating the template database failed: ${listed.stderr.toString()}`);
    return name;
  })();
  return template;
}

export interface RelayOptions {
  env?: Record<string, string>;
  /** Reuse a data directory (to restart on the same database). */
  dataDir?: string;
  port?: number;
  /**
   * Whom the relay's first start makes the first person, with a token for the inbox and one for an
   * agent that it prints: `token` hands those out, once each, for this person in the default space
   * instead of minting more with the CLI (a process start each). "first" unless given.
   */
  firstPerson?: string;
}

export class RelayProcess {
  readonly dataDir: string;
  port = 0;
  #proc?: Subprocess;
  #log = "";
  /** Every relay of this process started and not yet disposed: a benchmark that fails says what each logged. */
  static readonly live = new Set<RelayProcess>();
  #env: Record<string, string>;
  readonly #firstPerson: string;
  /** The tokens the first start printed and no test has been handed yet, by kind. */
  #firstTokens = new Map<"person" | "agent", string>();

  constructor(opts: RelayOptions = {}) {
    this.dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "loopback-test-"));
    this.port = opts.port ?? 0;
    this.#env = opts.env ?? {};
    this.#firstPerson = opts.firstPerson ?? "first";
  }

  /** The PostgreSQL database this relay keeps everything in, when it runs on one. */
  get databaseUrl(): string | undefined {
    return this.#env.LOOPBACK_DATABASE_URL;
  }

  /** Rows of a query (`$1`… for parameters) on this relay's store, SQLite file or PostgreSQL, as a test inspects it. */
  rows<T = Record<string, unknown>>(query: string, ...params: (string | number)[]): Promise<T[]> {
    return storeRows<T>({ dataDir: this.dataDir, databaseUrl: this.databaseUrl }, query, ...params);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.#proc?.pid;
  }

  /** Whether this relay answers at its address now (within 2 s). */
  async answers(): Promise<boolean> {
    try {
      const res = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(2_000) });
      await res.body?.cancel();
      return res.ok;
    } catch {
      return false;
    }
  }

  /** The relay process's resident memory, in bytes (Linux). */
  rss(): number {
    const status = readFileSync(`/proc/${this.pid}/status`, "utf8");
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
  }

  get log(): string {
    return this.#log;
  }

  private env(extra: Record<string, string> = {}) {
    return { ...process.env, LOOPBACK_DATA: this.dataDir, LOOPBACK_HOST: "127.0.0.1", LOOPBACK_FIRST_PERSON: this.#firstPerson, LOOPBACK_WEB_BUILD: "off", ...this.#env, ...extra };
  }

  /** Starts the relay (on the port it had before, when restarting) and waits until it answers. */
  async start(): Promise<this> {
    if (!this.port) this.port = await freePort();
    if (TEST_STORE === "postgres" && !this.databaseUrl) this.#env = { ...this.#env, LOOPBACK_DATABASE_URL: await freshDatabase() };
    this.#log = "";
    RelayProcess.live.add(this);
    // `LOOPBACK_RELAY_PROFILE=DIR`: each relay, run from the source, writes a CPU profile (Bun's, as markdown too) into DIR as it exits.
    const profile = process.env.LOOPBACK_RELAY_PROFILE;
    const command = profile ? [process.execPath, "--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${profile}`, "--cpu-prof-interval=100", CLI] : RELAY_COMMAND;
    const proc = Bun.spawn([...command, "serve"], {
      env: this.env({ LOOPBACK_PORT: String(this.port) }),
      stdout: "pipe",
      stderr: "pipe",
    });
    this.#proc = proc;
    const read = Promise.all([collect(proc.stdout as ReadableStream<Uint8Array>, (s) => (this.#log += s)), collect(proc.stderr as ReadableStream<Uint8Array>, (s) => (this.#log += s))]);
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null) {
        // What it said before exiting may still be in its pipes (a full run once saw the bare "relay exited (2)").
        await Promise.race([read, Bun.sleep(1_000)]);
        throw new Error(`relay exited (${proc.exitCode}):\n${this.#log}`);
      }
      try {
        const res = await fetch(`${this.url}/api/v1/whoami`);
        // Serving, and it said so (with the first tokens, on a first start): the log is what tests read.
        if (res.status === 401 && this.#log.includes("Loopback relay on")) {
          this.#keepFirstTokens();
          return this;
        }
      } catch {}
      await Bun.sleep(25);
    }
    throw new Error(`relay did not start:\n${this.#log}`);
  }

  /** The tokens a first start printed (serve.ts), kept until a test asks for them. */
  #keepFirstTokens(): void {
    const own = /^Your token \(for the inbox\):\s+(\S+)$/m.exec(this.#log)?.[1];
    const agent = /^An agent token \(for MCP\):\s+(\S+)$/m.exec(this.#log)?.[1];
    if (own) this.#firstTokens.set("person", own);
    if (agent) this.#firstTokens.set("agent", agent);
  }

  /**
   * A token for `person`: one the first start printed, when it was made for them (`firstPerson`) and
   * not handed out yet, else one the real CLI mints against the same data directory.
   */
  async token(person: string, opts: { agent?: boolean; space?: string } = {}): Promise<string> {
    const kind = opts.agent ? "agent" : "person";
    const printed = this.#firstTokens.get(kind);
    if (printed && person === this.#firstPerson && !opts.space) {
      this.#firstTokens.delete(kind);
      return printed;
    }
    const args = [...RELAY_COMMAND, "token", "create", "--person", person];
    if (opts.agent) args.push("--agent");
    if (opts.space) args.push("--space", opts.space);
    const proc = Bun.spawnSync(args, { env: this.env(), stdout: "pipe", stderr: "pipe" });
    if (proc.exitCode !== 0) throw new Error(`token create failed: ${proc.stderr.toString()}`);
    return proc.stdout.toString().trim().split("\n").at(-1)!;
  }

  cli(args: string[]) {
    const proc = Bun.spawnSync([...RELAY_COMMAND, ...args], { env: this.env(), stdout: "pipe", stderr: "pipe" });
    return { exitCode: proc.exitCode, stdout: proc.stdout.toString(), stderr: proc.stderr.toString() };
  }

  /** Stops the relay the polite way (SIGTERM). */
  async stop(): Promise<void> {
    if (!this.#proc) return;
    this.#proc.kill("SIGTERM");
    await this.#proc.exited;
    this.#proc = undefined;
  }

  /** Kills the relay with SIGKILL, as a crash would. */
  async kill9(): Promise<void> {
    if (!this.#proc) return;
    this.#proc.kill("SIGKILL");
    await this.#proc.exited;
    this.#proc = undefined;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async dispose(): Promise<void> {
    RelayProcess.live.delete(this);
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** Rows of a query (`$1`… for parameters) on a relay's store, its SQLite file or its PostgreSQL database, read as a test inspects it. */
export async function storeRows<T = Record<string, unknown>>(where: { dataDir: string; databaseUrl?: string }, query: string, ...params: (string | number)[]): Promise<T[]> {
  if (where.databaseUrl) {
    const sql = postgres(where.databaseUrl, { max: 1, onnotice: () => {} });
    try {
      return (await sql.unsafe(query, params)) as unknown as T[];
    } finally {
      await sql.end({ timeout: 1 });
    }
  }
  const db = new Database(join(where.dataDir, "loopback.sqlite"), { readonly: true });
  try {
    return db.query(query).all(...params) as T[];
  } finally {
    db.close();
  }
}

async function collect(stream: ReadableStream<Uint8Array>, into: (s: string) => void) {
  const decoder = new TextDecoder();
  for await (const chunk of stream) into(decoder.decode(chunk));
}

/**
 * A loopback port nothing listens on, for a server a test starts later. Chosen below the kernel's
 * ephemeral range (ip_local_port_range), never from it: the kernel hands those out to every
 * outgoing connection and every bind to port 0, and a port freed here was taken by a relay's or a
 * client's connection before the server bound it (PostgreSQL's "Address already in use" in a full
 * run). Below the range only another caller of this function may pick the same port: never twice in
 * one process, and never one of another run `tests/run.ts` has going side by side (`pickRange`).
 */
export async function freePort(): Promise<number> {
  const [from, to] = pickRange();
  for (;;) {
    const port = from + Math.floor(Math.random() * (to - from));
    if (given.has(port)) continue;
    try {
      Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } }).stop(true);
    } catch {
      continue;
    }
    given.add(port);
    return port;
  }
}

/** Where the kernel's ephemeral ports begin (32768 on Linux unless set otherwise). */
const EPHEMERAL_FROM = (() => {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
})();
/** The lowest port handed out: above the well-known and the usual services' ports. */
const PORTS_FROM = Math.min(20_000, EPHEMERAL_FROM - 4_096);
const given = new Set<number>();

/**
 * The part of the range this process picks from. `tests/run.ts` gives each run it has going side by
 * side a part of its own (`LOOPBACK_TEST_PORTS=i/n`, the i-th of n), and keeps the last for itself:
 * two processes may otherwise pick the same port between one's check and its server's bind, and a
 * relay binds with SO_REUSEPORT (its planned restart needs it), so two relays of two test files
 * would share the port silently, each answering some of the other's requests (a 401 for a token
 * the other relay never minted, seen once on the replicas).
 */
function pickRange(): [number, number] {
  const part = /^(\d+)\/(\d+)$/.exec(process.env.LOOPBACK_TEST_PORTS ?? "");
  if (!part) return [PORTS_FROM, EPHEMERAL_FROM];
  const [i, n] = [Number(part[1]), Number(part[2])];
  const size = Math.floor((EPHEMERAL_FROM - PORTS_FROM) / n);
  return [PORTS_FROM + i * size, PORTS_FROM + (i + 1) * size];
}
