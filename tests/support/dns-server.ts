// A DNS server of our own on a loopback UDP port, for a relay told to resolve through it
// (`LOOPBACK_PUSH_DNS`): it answers A and AAAA questions from a table a test sets and changes, and
// counts the questions, so a test knows the relay really asked.
import dgram from "node:dgram";
import packet from "dns-packet";

export class DnsServer {
  /** Name → the addresses it resolves to, IPv4 and IPv6 mixed. */
  readonly names = new Map<string, string[]>();
  readonly asked: string[] = [];

  private constructor(private socket: dgram.Socket) {}

  static start(): Promise<DnsServer> {
    const socket = dgram.createSocket("udp4");
    const server = new DnsServer(socket);
    socket.on("message", (message, from) => socket.send(server.#answer(message), from.port, from.address));
    return new Promise((resolve) => socket.bind(0, "127.0.0.1", () => resolve(server)));
  }

  /** `address:port`, as `LOOPBACK_PUSH_DNS` takes it. */
  get address(): string {
    return `127.0.0.1:${this.socket.address().port}`;
  }

  #answer(message: Buffer): Buffer {
    const query = packet.decode(message);
    const question = query.questions![0]!;
    this.asked.push(question.name);
    const family = question.type === "A" ? 4 : question.type === "AAAA" ? 6 : 0;
    const addresses = (this.names.get(question.name.toLowerCase()) ?? []).filter((a) => (a.includes(":") ? 6 : 4) === family);
    const known = this.names.has(question.name.toLowerCase());
    return packet.encode({
      type: "response",
      id: query.id,
      flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | (known ? 0 : 3), // 3: NXDOMAIN
      questions: query.questions,
      answers: addresses.map((data) => ({ type: family === 4 ? ("A" as const) : ("AAAA" as const), name: question.name, ttl: 0, data })),
    });
  }

  stop(): void {
    this.socket.close();
  }
}
