// A real load balancer for a test run: Debian's HAProxy running `docs/haproxy.cfg` (the file the
// README shows), with its frontend port, admin socket and servers replaced by the scene's own.
// Installed with apt-get when missing and this user may, as PostgreSQL is (tests/support/postgres.ts).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { ROOT } from "./relay-process.ts";

export const HAPROXY_CONFIG = join(ROOT, "docs/haproxy.cfg");

/** HAProxy's binary, installing Debian's `haproxy` when there is none. */
export function haproxyBin(): string {
  const bin = process.env.LOOPBACK_HAPROXY ?? "/usr/sbin/haproxy";
  if (existsSync(bin)) return bin;
  if (process.getuid?.() !== 0 || !existsSync("/usr/bin/apt-get")) throw new Error(`The replica tests need Debian's \`haproxy\` package (${bin}), or LOOPBACK_HAPROXY set.`);
  for (const cmd of [["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "haproxy"]]) {
    const r = Bun.spawnSync(cmd, { stdout: "inherit", stderr: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
    if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed`);
  }
  if (!existsSync(bin)) throw new Error(`haproxy was installed but ${bin} is not there.`);
  return bin;
}

export interface Backend {
  /** The server's name in HAProxy (`r1`, `r2`…), as its stats name it. */
  name: string;
  port: number;
}

/** What HAProxy's stats say of a server: `UP`, `DOWN`, `UP 1/2` (going down), `DOWN 1/2` (coming back)… */
export type ServerStatus = string;

/**
 * `docs/haproxy.cfg` for this run: the frontend on `port`, the admin socket in `dir`, one `server`
 * line per backend, and connections to the replicas made from `source`, so the relays can tell
 * HAProxy (trusted) from the test's own clients on 127.0.0.1 (not trusted).
 */
export function haproxyConfig(template: string, opts: { port: number; dir: string; backends: Backend[]; source: string }): string {
  const lines = template.split("\n");
  const serverAt = lines.findIndex((l) => /^\s+server\s/.test(l));
  if (serverAt < 0) throw new Error(`${HAPROXY_CONFIG} has no server line to replace`);
  const indent = /^\s+/.exec(lines[serverAt])![0];
  const servers = opts.backends.map((b) => `${indent}server ${b.name} 127.0.0.1:${b.port}`);
  const rest = lines.filter((l, i) => i < serverAt || !/^\s+server\s/.test(l));
  rest.splice(serverAt, 0, `${indent}source ${opts.source}`, ...servers);
  let out = rest.join("\n");
  const replace = (re: RegExp, by: string) => {
    if (!re.test(out)) throw new Error(`${HAPROXY_CONFIG} has no line matching ${re}`);
    out = out.replace(re, by);
  };
  replace(/^(\s+bind )\S+/m, `$1127.0.0.1:${opts.port}`);
  replace(/^(\s+stats socket )\S+/m, `$1${join(opts.dir, "admin.sock")}`);
  return out;
}

export class HaProxy {
  readonly dir = mkdtempSync(join(tmpdir(), "loopback-haproxy-"));
  #proc?: Subprocess;
  #log = "";
  #bin = haproxyBin();

  constructor(
    readonly port: number,
    readonly backends: Backend[],
    /** The address HAProxy connects to the replicas from (their LOOPBACK_TRUSTED_PROXIES). */
    readonly source = "127.0.0.2",
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get log(): string {
    return this.#log;
  }

  get configPath(): string {
    return join(this.dir, "haproxy.cfg");
  }

  /** Starts HAProxy in the foreground and waits until it accepts connections. */
  async start(): Promise<this> {
    const config = haproxyConfig(readFileSync(HAPROXY_CONFIG, "utf8"), { port: this.port, dir: this.dir, backends: this.backends, source: this.source });
    writeFileSync(this.configPath, config);
    const checked = Bun.spawnSync([this.#bin, "-c", "-q", "-f", this.configPath], { stdout: "pipe", stderr: "pipe" });
    if (checked.exitCode !== 0) throw new Error(`haproxy refused ${this.configPath}:\n${checked.stderr.toString()}\n${config}`);
    // `-db`: stay in the foreground, so the process is ours to stop and its log is ours to read.
    const proc = Bun.spawn([this.#bin, "-db", "-f", this.configPath], { stdout: "pipe", stderr: "pipe" });
    this.#proc = proc;
    process.once("exit", this.#stopOnExit);
    void collect(proc.stdout as ReadableStream<Uint8Array>, (s) => (this.#log += s));
    void collect(proc.stderr as ReadableStream<Uint8Array>, (s) => (this.#log += s));
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null) throw new Error(`haproxy exited (${proc.exitCode}):\n${this.#log}`);
      if (existsSync(join(this.dir, "admin.sock"))) {
        try {
          await this.statuses();
          return this;
        } catch {}
      }
      await Bun.sleep(25);
    }
    throw new Error(`haproxy did not start:\n${this.#log}`);
  }

  /** Sends one command to HAProxy's admin socket and returns its answer. */
  async admin(command: string): Promise<string> {
    let answer = "";
    const decoder = new TextDecoder();
    await new Promise<void>((resolve, reject) => {
      Bun.connect({
        unix: join(this.dir, "admin.sock"),
        socket: {
          open: (socket) => void socket.write(`${command}\n`),
          data: (_socket, chunk) => void (answer += decoder.decode(chunk, { stream: true })),
          close: () => resolve(),
          error: (_socket, e) => reject(e),
        },
      }).catch(reject);
    });
    return answer;
  }

  /** One column of HAProxy's stats for each replica, by server name. */
  async #stat(column: string): Promise<Record<string, string>> {
    const csv = (await this.admin("show stat")).trim().split("\n");
    const header = csv[0].replace(/^# /, "").split(",");
    const col = (name: string) => header.indexOf(name);
    const out: Record<string, string> = {};
    for (const row of csv.slice(1).map((l) => l.split(","))) {
      if (row[col("pxname")] === "relays" && row[col("svname")] !== "BACKEND") out[row[col("svname")]] = row[col(column)];
    }
    return out;
  }

  /** Each replica's status as HAProxy's health checks see it, by server name. */
  statuses(): Promise<Record<string, ServerStatus>> {
    return this.#stat("status");
  }

  /** How many connections HAProxy holds open to each replica now (`scur`), by server name. */
  async sessions(): Promise<Record<string, number>> {
    return Object.fromEntries(Object.entries(await this.#stat("scur")).map(([k, v]) => [k, Number(v)]));
  }

  /** Waits until HAProxy's checks say `name` is `status` (`UP` or `DOWN`); returns how long that took, in ms. */
  async until(name: string, status: "UP" | "DOWN", timeoutMs = 10_000): Promise<number> {
    const started = performance.now();
    for (;;) {
      const now = (await this.statuses())[name];
      if (now === status) return performance.now() - started;
      if (performance.now() - started > timeoutMs) throw new Error(`HAProxy still says ${name} is ${now}, not ${status}, after ${timeoutMs} ms:\n${this.#log.slice(-4000)}`);
      await Bun.sleep(20);
    }
  }

  #stopOnExit = () => this.#proc?.kill("SIGKILL");

  async stop(): Promise<void> {
    process.off("exit", this.#stopOnExit);
    if (this.#proc) {
      this.#proc.kill("SIGTERM");
      await this.#proc.exited;
      this.#proc = undefined;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function collect(stream: ReadableStream<Uint8Array>, into: (s: string) => void) {
  const decoder = new TextDecoder();
  for await (const chunk of stream) into(decoder.decode(chunk));
}
