// A TCP proxy between the relays and PostgreSQL that a test can cut, as a network fault would: `cut`
// drops every connection through it and holds new ones silent (connected, never answered, like a
// host out of reach), and `restore` forwards again the held connections their clients still wait on
// (one a client gave up on, as a lost handshake would, never reaches the database). It runs in a
// process of its own (`TcpProxy`), so a test blocked in a synchronous call (the CLI) or busy with
// its clients does not stall the relays' database traffic; run directly, this file is that process.
import { createServer, connect, type Server, type Socket } from "node:net";
import type { Subprocess } from "bun";

/** The proxy in a child process, told what to do on its standard input. */
export class TcpProxy {
  port = 0;
  #proc?: Subprocess<"pipe", "pipe", "inherit">;
  #lines?: AsyncIterator<string>;

  constructor(readonly target: { host: string; port: number }) {}

  async start(): Promise<this> {
    this.#proc = Bun.spawn([process.execPath, import.meta.path, this.target.host, String(this.target.port)], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
    process.once("exit", this.#kill);
    this.#lines = lines(this.#proc.stdout);
    this.port = Number(await this.#next());
    return this;
  }

  async #next(): Promise<string> {
    const { value, done } = await this.#lines!.next();
    if (done) throw new Error("the TCP proxy exited");
    return value;
  }

  async #tell(command: string): Promise<void> {
    this.#proc!.stdin.write(`${command}\n`);
    this.#proc!.stdin.flush();
    const answer = await this.#next();
    if (answer !== "ok") throw new Error(`the TCP proxy answered ${answer}`);
  }

  /** Drops every connection through the proxy and holds new ones unanswered until `restore`. */
  cut(): Promise<void> {
    return this.#tell("cut");
  }

  /** Forwards again, starting with the connections held while cut. */
  restore(): Promise<void> {
    return this.#tell("restore");
  }

  #kill = () => this.#proc?.kill("SIGKILL");

  async stop(): Promise<void> {
    process.off("exit", this.#kill);
    this.#proc?.kill();
    await this.#proc?.exited;
  }
}

async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    for (let at = buffered.indexOf("\n"); at >= 0; at = buffered.indexOf("\n")) {
      yield buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
    }
  }
}

class Forwarder {
  #server?: Server;
  #pairs = new Set<[Socket, Socket]>();
  /** Connections made while cut, with what their clients sent meanwhile. */
  #held = new Map<Socket, Buffer[]>();
  #cut = false;
  port = 0;

  constructor(readonly target: { host: string; port: number }) {}

  async start(): Promise<this> {
    const server = createServer((client) => {
      client.on("error", () => {});
      if (this.#cut) {
        // Read, not paused: a client that gives up is seen to leave, and is not forwarded later.
        // Forwarded, each would have the database start a backend for nobody (30 of them held a
        // relay's own reconnection 350 ms behind them).
        const sent: Buffer[] = [];
        this.#held.set(client, sent);
        client.on("data", (chunk: Buffer) => sent.push(chunk));
        const gone = () => this.#held.delete(client);
        client.once("end", gone).once("close", gone);
      } else this.#forward(client);
    });
    this.#server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.port = (server.address() as { port: number }).port;
    return this;
  }

  #forward(client: Socket, sent: Buffer[] = []): void {
    const upstream = connect(this.target.port, this.target.host);
    for (const chunk of sent) upstream.write(chunk);
    const pair: [Socket, Socket] = [client, upstream];
    this.#pairs.add(pair);
    const drop = () => {
      this.#pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    upstream.on("error", drop).on("close", drop);
    client.on("error", drop).on("close", drop);
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  }

  /** Drops every connection through the proxy and holds new ones unanswered until `restore`. */
  cut(): void {
    this.#cut = true;
    for (const [client, upstream] of [...this.#pairs]) {
      // A reset, as a firewall dropping the route sends.
      if (typeof client.resetAndDestroy === "function") client.resetAndDestroy();
      else client.destroy();
      upstream.destroy();
    }
    this.#pairs.clear();
  }

  /** Forwards again, starting with the connections held while cut. */
  restore(): void {
    this.#cut = false;
    for (const [client, sent] of [...this.#held]) {
      this.#held.delete(client);
      // Piped from here on (in this same turn: no data falls between).
      client.removeAllListeners("data").removeAllListeners("end");
      if (!client.destroyed) this.#forward(client, sent);
    }
  }

  async stop(): Promise<void> {
    this.cut();
    for (const client of this.#held.keys()) client.destroy();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }
}

if (import.meta.main) {
  const proxy = await new Forwarder({ host: process.argv[2], port: Number(process.argv[3]) }).start();
  console.log(proxy.port);
  for await (const line of lines(Bun.stdin.stream())) {
    if (line === "cut") proxy.cut();
    else if (line === "restore") proxy.restore();
    console.log(line === "cut" || line === "restore" ? "ok" : `unknown command ${line}`);
  }
}
