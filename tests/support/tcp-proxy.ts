// A TCP proxy between the relays and PostgreSQL that a test can cut, as a network fault would: `cut`
// drops every connection through it and holds new ones silent (connected, never answered, like a
// host out of reach), and `restore` forwards again, the held connections included.
import { createServer, connect, type Server, type Socket } from "node:net";

export class TcpProxy {
  #server?: Server;
  #pairs = new Set<[Socket, Socket]>();
  #held = new Set<Socket>();
  #cut = false;
  port = 0;

  constructor(readonly target: { host: string; port: number }) {}

  async start(): Promise<this> {
    const server = createServer((client) => {
      client.on("error", () => {});
      if (this.#cut) {
        client.pause();
        this.#held.add(client);
        client.once("close", () => this.#held.delete(client));
      } else this.#forward(client);
    });
    this.#server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.port = (server.address() as { port: number }).port;
    return this;
  }

  #forward(client: Socket): void {
    const upstream = connect(this.target.port, this.target.host);
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

  get isCut(): boolean {
    return this.#cut;
  }

  /** Drops every connection through the proxy and holds new ones unanswered until `restore`. */
  cut(): void {
    this.#cut = true;
    for (const [client, upstream] of [...this.#pairs]) {
      client.resetAndDestroy?.() ?? client.destroy();
      upstream.destroy();
    }
    this.#pairs.clear();
  }

  /** Forwards again, starting with the connections held while cut. */
  restore(): void {
    this.#cut = false;
    for (const client of [...this.#held]) {
      this.#held.delete(client);
      if (!client.destroyed) this.#forward(client);
    }
  }

  async stop(): Promise<void> {
    this.cut();
    for (const client of this.#held) client.destroy();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }
}
