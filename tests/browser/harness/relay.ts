// A real relay for the browser tests: `bun relay/src/cli.ts serve` as a child process on a free
// port and a fresh data directory, with tokens minted by the same CLI a person would use.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";

export const ROOT = resolve(import.meta.dir, "../../..");

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

export class TestRelay {
  readonly dataDir = mkdtempSync(join(tmpdir(), "loopback-e2e-"));
  #process: Subprocess | null = null;
  #log = "";

  private constructor(
    readonly port: number,
    private readonly env: Record<string, string>,
  ) {}

  /** `env` adds to the relay's environment, e.g. `LOOPBACK_WAIT_BUDGET_S: "0.1"` so blocking tools return `pending` quickly. */
  static async start(env: Record<string, string> = {}): Promise<TestRelay> {
    const relay = new TestRelay(await freePort(), env);
    await relay.up();
    return relay;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get log(): string {
    return this.#log;
  }

  #env() {
    return { ...process.env, ...this.env, LOOPBACK_DATA: this.dataDir, LOOPBACK_PORT: String(this.port) };
  }

  /** Starts the relay (again, on the same port and data, after `down`) and waits until it answers. */
  async up(): Promise<void> {
    const child = Bun.spawn(["bun", "relay/src/cli.ts", "serve"], { cwd: ROOT, env: this.#env(), stdout: "pipe", stderr: "pipe" });
    this.#process = child;
    for (const stream of [child.stdout, child.stderr] as ReadableStream<Uint8Array>[]) {
      void stream.pipeTo(new WritableStream({ write: (chunk) => void (this.#log += new TextDecoder().decode(chunk)) }));
    }
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`The relay exited (${child.exitCode}):\n${this.#log}`);
      try {
        const response = await fetch(`${this.url}/api/v1/whoami`);
        if (response.status === 401) return;
      } catch {
        // Not listening yet.
      }
      await Bun.sleep(100);
    }
    throw new Error(`The relay did not answer within 15 s:\n${this.#log}`);
  }

  /** Stops the relay process, as a crash or a deploy would: every socket drops. */
  async down(): Promise<void> {
    const child = this.#process;
    if (!child) return;
    child.kill("SIGTERM");
    await child.exited;
    this.#process = null;
  }

  /** A token from `loopback token create`, which prints it alone on its last line. */
  async token(person: string, agent = false): Promise<string> {
    const args = ["bun", "relay/src/cli.ts", "token", "create", "--person", person, ...(agent ? ["--agent"] : [])];
    const child = Bun.spawn(args, { cwd: ROOT, env: this.#env(), stdout: "pipe", stderr: "pipe" });
    const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    if (code !== 0) throw new Error(`token create failed: ${await new Response(child.stderr).text()}`);
    return out.trim().split("\n").at(-1)!.trim();
  }

  async stop(): Promise<void> {
    await this.down();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
