// The benchmark's handle on the person (person-process.child.ts), a process of its own as a browser
// is: arm it before an agent asks, and it answers the next ask it sees on its inbox socket, `afterMs`
// later, saying when it saw the ask, sent the reply and had its answer. (A worker thread shared the
// agent's process and its one HTTP client thread; measured after a pause, moving the person out
// changed no figure, but nothing of the agent's process is left for the person to touch.)
import type { Subprocess } from "bun";

export type ToPerson = { type: "start"; url: string; token: string } | { type: "arm"; reply: unknown; afterMs: number } | { type: "stop" };
export type Replied = { type: "replied"; askId: string; seenAt: number; sentAt: number; okAt: number; status: number };
export type FromPerson = { type: "ready" } | { type: "armed" } | Replied | { type: "stopped" };

/** Milliseconds since 1970 on a high-resolution clock: the two processes' marks compare. */
export const absoluteNow = () => performance.timeOrigin + performance.now();

export class PersonProcess {
  #child: Subprocess;
  #waiting = new Map<FromPerson["type"], (m: FromPerson) => void>();

  private constructor() {
    this.#child = Bun.spawn([process.execPath, new URL("./person-process.child.ts", import.meta.url).pathname], {
      stdio: ["ignore", "inherit", "inherit"],
      serialization: "json",
      ipc: (message: FromPerson) => {
        const resolve = this.#waiting.get(message.type);
        this.#waiting.delete(message.type);
        resolve?.(message);
      },
    });
    // A person process that dies ends the run with its reason (on its stderr), not a wait forever.
    void this.#child.exited.then((code) => {
      if (this.#waiting.size) throw new Error(`the person's process exited (${code}) while the benchmark waited on it`);
    });
  }

  static async start(url: string, token: string): Promise<PersonProcess> {
    const person = new PersonProcess();
    await person.#ask({ type: "start", url, token }, "ready");
    return person;
  }

  #ask<T extends FromPerson>(message: ToPerson, answer: T["type"]): Promise<T> {
    const heard = new Promise<T>((resolve) => this.#waiting.set(answer, resolve as (m: FromPerson) => void));
    this.#child.send(message);
    return heard;
  }

  /** Arms the person to answer the next ask with `reply`, `afterMs` after seeing it; resolves once armed, with how the answer went. */
  async arm(reply: unknown, afterMs = 0): Promise<{ replied: Promise<Replied> }> {
    const replied = new Promise<Replied>((resolve) => this.#waiting.set("replied", resolve as (m: FromPerson) => void));
    await this.#ask({ type: "arm", reply, afterMs }, "armed");
    return { replied };
  }

  async stop(): Promise<void> {
    await this.#ask({ type: "stop" }, "stopped");
    this.#child.kill();
    await this.#child.exited;
  }
}
