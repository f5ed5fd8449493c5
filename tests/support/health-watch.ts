// `/healthz` of each relay, timed every 25 ms by a process of its own, so that the test's own pauses
// (a synchronous `pg_ctl`, its hundred agents) are not counted as the relays'. Run directly, this
// file is that process: it prints one line per answer, `wall-clock start,ms,status` (status 0 when
// no answer came within a second).
import type { Subprocess } from "bun";

export interface HealthSample {
  /** When the request was sent (Date.now(), comparable across processes). */
  at: number;
  ms: number;
  status: number;
}

export class HealthWatch {
  readonly samples: HealthSample[] = [];
  #proc?: Subprocess<"ignore", "pipe", "inherit">;

  constructor(private urls: string[]) {}

  start(): this {
    this.#proc = Bun.spawn([process.execPath, import.meta.path, ...this.urls], { stdout: "pipe", stderr: "inherit" });
    process.once("exit", this.#kill);
    void (async () => {
      const decoder = new TextDecoder();
      let buffered = "";
      for await (const chunk of this.#proc!.stdout) {
        buffered += decoder.decode(chunk, { stream: true });
        const lines = buffered.split("\n");
        buffered = lines.pop()!;
        for (const line of lines) {
          const [at, ms, status] = line.split(",").map(Number);
          this.samples.push({ at, ms, status });
        }
      }
    })();
    return this;
  }

  /** The answers to requests sent between two wall-clock times. */
  between(from: number, to: number): HealthSample[] {
    return this.samples.filter((s) => s.at >= from && s.at <= to);
  }

  #kill = () => this.#proc?.kill("SIGKILL");

  stop(): void {
    process.off("exit", this.#kill);
    this.#proc?.kill();
  }
}

if (import.meta.main) {
  const urls = process.argv.slice(2);
  setInterval(() => {
    for (const url of urls) {
      const at = Date.now();
      const started = performance.now();
      void fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) }).then(
        (res) => console.log(`${at},${(performance.now() - started).toFixed(2)},${res.status}`),
        () => console.log(`${at},Infinity,0`),
      );
    }
  }, 25);
}
