// The benchmark's handle on the person's thread (person-thread.worker.ts): arm it before an agent
// asks, and it answers the next ask it sees on its inbox socket, `afterMs` later, saying when it saw
// the ask, sent the reply and had its answer.
export type ToPerson = { type: "start"; url: string; token: string } | { type: "arm"; reply: unknown; afterMs: number } | { type: "stop" };
export type Replied = { type: "replied"; askId: string; seenAt: number; sentAt: number; okAt: number; status: number };
export type FromPerson = { type: "ready" } | { type: "armed" } | Replied | { type: "stopped" };

/** Milliseconds on a clock both threads share. */
export const absoluteNow = () => performance.timeOrigin + performance.now();

export class PersonThread {
  #worker: Worker;
  #waiting = new Map<FromPerson["type"], (m: FromPerson) => void>();

  private constructor() {
    this.#worker = new Worker(new URL("./person-thread.worker.ts", import.meta.url).href);
    this.#worker.onmessage = (e: MessageEvent<FromPerson>) => {
      const resolve = this.#waiting.get(e.data.type);
      this.#waiting.delete(e.data.type);
      resolve?.(e.data);
    };
  }

  static async start(url: string, token: string): Promise<PersonThread> {
    const thread = new PersonThread();
    await thread.#ask({ type: "start", url, token }, "ready");
    return thread;
  }

  #ask<T extends FromPerson>(message: ToPerson, answer: T["type"]): Promise<T> {
    const heard = new Promise<T>((resolve) => this.#waiting.set(answer, resolve as (m: FromPerson) => void));
    this.#worker.postMessage(message);
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
    this.#worker.terminate();
  }
}
