// A private PostgreSQL server for a test run: Debian's PostgreSQL (15 here) in a temporary data
// directory on a free loopback port, run as the `postgres` user (its tools refuse root), with trust
// authentication for connections from this machine, and torn down after. Installed with apt-get
// when missing and this user may, as the browser tests do for Chromium.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./relay-process.ts";

const PG_ROOT = "/usr/lib/postgresql";

/** The binaries of the newest PostgreSQL installed, installing Debian's when there is none. */
export function postgresBin(): string {
  const find = () => (existsSync(PG_ROOT) ? readdirSync(PG_ROOT).filter((v) => existsSync(join(PG_ROOT, v, "bin/postgres"))).sort((a, b) => Number(b) - Number(a))[0] : undefined);
  let version = find();
  if (!version) {
    if (process.getuid?.() !== 0 || !existsSync("/usr/bin/apt-get")) throw new Error("The PostgreSQL tests need Debian's `postgresql` package.");
    for (const cmd of [["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "postgresql"]]) {
      const r = Bun.spawnSync(cmd, { stdout: "inherit", stderr: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
      if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed`);
    }
    version = find();
    if (!version) throw new Error("PostgreSQL was installed but no server binary was found.");
  }
  return join(PG_ROOT, version, "bin");
}

/** Runs a PostgreSQL tool as the `postgres` user when this is root (its tools refuse root). */
function asPostgres(cmd: string[]): { exitCode: number; out: string } {
  const full = process.getuid?.() === 0 ? ["runuser", "-u", "postgres", "--", ...cmd] : cmd;
  const r = Bun.spawnSync(full, { stdout: "pipe", stderr: "pipe" });
  return { exitCode: r.exitCode ?? 1, out: r.stdout.toString() + r.stderr.toString() };
}

const OWNER_FILE = "owner.pid";

/**
 * Stops servers of test processes that are gone (`bun test` runs no exit handlers, and a test process
 * can be killed): each server's directory names the process that started it.
 */
function stopAbandoned(): void {
  const bin = postgresBin();
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith("loopback-pg-")) continue;
    const dir = join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, OWNER_FILE), "utf8"));
    } catch {
      continue;
    }
    if (!owner || isAlive(owner)) continue;
    if (existsSync(join(dir, "data"))) asPostgres([join(bin, "pg_ctl"), "-D", join(dir, "data"), "-m", "immediate", "stop"]);
    rmSync(dir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM";
  }
}

export class PostgresServer {
  readonly dir: string;
  port = 0;
  #bin = postgresBin();

  constructor() {
    stopAbandoned();
    this.dir = mkdtempSync(join(tmpdir(), "loopback-pg-"));
    // Who started it: a later run stops a server whose test process died without stopping it.
    writeFileSync(join(this.dir, OWNER_FILE), String(process.pid));
    // The server runs as `postgres`, which must own its directory.
    chmodSync(this.dir, 0o755);
    if (process.getuid?.() === 0) Bun.spawnSync(["chown", "postgres:postgres", this.dir]);
  }

  /** A database URL for `name` (created by `createDatabase`). */
  url(name = "loopback"): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${name}`;
  }

  async start(): Promise<this> {
    this.port = await freePort();
    const data = join(this.dir, "data");
    const init = asPostgres([join(this.#bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
    if (init.exitCode !== 0) throw new Error(`initdb failed:\n${init.out}`);
    this.#run();
    // pg_ctl leaves the server running on its own: a test process that dies still stops it.
    process.once("exit", this.#stopOnExit);
    return this;
  }

  /** Starts the server on its data directory and port, and waits until it takes connections. */
  #run(): void {
    const opts = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c max_connections=600 -c fsync=on`;
    const started = asPostgres([join(this.#bin, "pg_ctl"), "-D", join(this.dir, "data"), "-l", join(this.dir, "log"), "-w", "-o", opts, "start"]);
    if (started.exitCode !== 0) throw new Error(`pg_ctl start failed:\n${started.out}`);
  }

  /** Stops the server cleanly (`pg_ctl stop -m fast`: sessions are ended, the data is checkpointed). */
  stopCleanly(): void {
    const r = asPostgres([join(this.#bin, "pg_ctl"), "-D", join(this.dir, "data"), "-m", "fast", "-w", "stop"]);
    if (r.exitCode !== 0) throw new Error(`pg_ctl stop failed:\n${r.out}`);
  }

  /** Kills the server and every backend with SIGKILL, as a crash would; `resume` then recovers it. */
  async kill9(): Promise<void> {
    const postmaster = Number(readFileSync(join(this.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
    const children = Bun.spawnSync(["ps", "-o", "pid=", "--ppid", String(postmaster)]).stdout.toString().trim().split(/\s+/).filter(Boolean).map(Number);
    for (const pid of [postmaster, ...children]) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
    while ([postmaster, ...children].some(isAlive)) await Bun.sleep(10);
  }

  /** Starts the server again after `stopCleanly` or `kill9`, on the same port and data. */
  resume(): void {
    this.#run();
  }

  /** Creates a database, as a copy of `template` when given (a migrated one copies faster than it migrates). */
  createDatabase(name: string, template?: string): string {
    const r = asPostgres([join(this.#bin, "createdb"), "-h", "127.0.0.1", "-p", String(this.port), "-U", "postgres", ...(template ? ["-T", template] : []), name]);
    if (r.exitCode !== 0) throw new Error(`createdb ${name} failed:\n${r.out}`);
    return this.url(name);
  }

  #stopOnExit = () => this.stop();

  stop(): void {
    process.off("exit", this.#stopOnExit);
    if (!existsSync(this.dir)) return;
    asPostgres([join(this.#bin, "pg_ctl"), "-D", join(this.dir, "data"), "-m", "immediate", "stop"]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
