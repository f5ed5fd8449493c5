// A reader slower than the relay must not be cut off because of its own snapshot: a snapshot of 48
// large reviews (~12 MiB) is still on its way when asks keep changing. The changes are held until
// the snapshot is out and then sent, in order; before, they were queued behind it and took the
// socket past its 8 MiB backpressure limit, which closed it. The reader here is a raw TCP WebSocket
// client that stops reading for a while, as a phone on a slow link does.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { Agent } from "../support/agent.ts";
import { newProject, scene, until, type BareScene } from "../support/scene.ts";
import { toolReply } from "../mcp/mcp-scene.ts";

let s: BareScene;
beforeAll(async () => {
  s = await scene({ client: false, env: { LOOPBACK_WAIT_BUDGET_S: "0.01" } });
}, 60_000);
afterAll(() => s.dispose());

const bigReview = (project: string, n: number) => ({
  title: `Large ${n}`,
  project,
  content: [{ type: "markdown", text: `${n} `.padEnd(250 * 1024, "lorem ipsum ") }],
});

/**
 * A WebSocket client over a bare TCP socket, so the test decides when it reads. It joins what it
 * receives once a frame is whole and parses each text frame once: copying the growing buffer at
 * every chunk of a 12 MiB frame, and parsing the snapshot again at every look, grew with the square
 * of what it read.
 */
class SlowReader {
  #buffer = Buffer.alloc(0);
  /** Chunks received since the buffer was last joined, and the bytes the frame begun there needs. */
  #chunks: Buffer[] = [];
  #received = 0;
  #needed = 0;
  #handshaken = false;
  frames: { opcode: number; text: string }[] = [];
  events: { type: string; ask?: { id: string; project?: string }; snapshot?: { open: { project: string }[] } }[] = [];
  /** Settles once the first bytes after the handshake arrive: the relay has read its snapshot. */
  readonly snapshotBegun = Promise.withResolvers<void>();
  private constructor(readonly socket: Socket) {}

  static open(url: string, token: string): Promise<SlowReader> {
    const { hostname, port } = new URL(url);
    const socket = connect({ host: hostname, port: Number(port) });
    const reader = new SlowReader(socket);
    socket.on("data", (chunk: Buffer | string) => reader.#read(Buffer.from(chunk)));
    return new Promise((resolve, reject) => {
      socket.once("error", reject);
      socket.once("connect", () => {
        socket.write(
          [
            "GET /api/v1/events HTTP/1.1",
            `Host: ${hostname}:${port}`,
            "Upgrade: websocket",
            "Connection: Upgrade",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
            "Sec-WebSocket-Version: 13",
            "Sec-WebSocket-Protocol: loopback.v1",
            `Authorization: Bearer ${token}`,
            "",
            "",
          ].join("\r\n"),
        );
        resolve(reader);
      });
    });
  }

  #read(chunk: Buffer) {
    this.#chunks.push(chunk);
    this.#received += chunk.length;
    if (this.#received < this.#needed) return;
    this.#buffer = Buffer.concat([this.#buffer, ...this.#chunks]);
    this.#chunks = [];
    this.#needed = 0;
    if (!this.#handshaken) {
      const end = this.#buffer.indexOf("\r\n\r\n");
      if (end === -1) return;
      expect(this.#buffer.subarray(0, 12).toString()).toBe("HTTP/1.1 101");
      this.#handshaken = true;
      this.#buffer = this.#buffer.subarray(end + 4);
    }
    if (this.#buffer.length > 0) this.snapshotBegun.resolve();
    for (;;) {
      this.#received = this.#buffer.length;
      if (this.#buffer.length < 2) return;
      const opcode = this.#buffer[0]! & 0x0f;
      let length = this.#buffer[1]! & 0x7f;
      const at = length === 126 ? 4 : length === 127 ? 10 : 2;
      if (this.#buffer.length < at) return;
      if (length === 126) length = this.#buffer.readUInt16BE(2);
      else if (length === 127) length = Number(this.#buffer.readBigUInt64BE(2));
      if (this.#buffer.length < at + length) {
        this.#needed = at + length;
        return;
      }
      const text = this.#buffer.subarray(at, at + length).toString();
      this.frames.push({ opcode, text });
      if (opcode === 1) this.events.push(JSON.parse(text));
      this.#buffer = this.#buffer.subarray(at + length);
    }
  }

  get closed(): boolean {
    return this.frames.some((f) => f.opcode === 8) || this.socket.destroyed;
  }
}

test("a reader that stops reading during a 12 MiB snapshot, while asks change, gets the snapshot and then every change, and stays connected", async () => {
  const project = newProject();
  const agents = await Promise.all(Array.from({ length: 4 }, () => Agent.connect(s.relay.url, s.agentToken)));
  await Promise.all(agents.map(async (agent, a) => {
    for (let n = a; n < 48; n += agents.length) toolReply(await agent.call("request_review", bigReview(project, n)));
  }));

  const reader = await SlowReader.open(s.relay.url, s.person.token);
  // The later asks must be opened after the snapshot was read: one opened before is in the snapshot
  // and rightly not told again, and the relay may take the upgrade after an agent's call (on
  // PostgreSQL it reads the token from the database first).
  await reader.snapshotBegun.promise;
  reader.socket.pause();
  // While the snapshot waits in the relay's buffers, 20 more large asks are opened.
  const later = newProject();
  await Promise.all(agents.map(async (agent, a) => {
    for (let n = a; n < 20; n += agents.length) toolReply(await agent.call("request_review", bigReview(later, n)));
  }));
  await Bun.sleep(500);
  reader.socket.resume();

  const openedLater = () => new Set(reader.events.filter((e) => e.type === "ask.opened" && e.ask?.project === later).map((e) => e.ask!.id)).size;
  await until(() => openedLater() >= 20 || reader.closed, "every change after the snapshot", 30_000).catch(() => {});
  // A second snapshot would be the space sent afresh (the relay heard that it may have missed changes,
  // as when the database was away for it): what was held for the first is then dropped. None is
  // expected here; the relay's words on the database say why if one came.
  const snapshots = reader.events.filter((e) => e.type === "snapshot").length;
  const database = s.relay.log.split("\n").filter((line) => /database|listening again/.test(line));
  // Should one not come: what the reader heard of each later ask it was not told was opened (a
  // frame of another type, or nothing at all), and what the relay says of it now.
  const opened = new Set(reader.events.filter((e) => e.type === "ask.opened").map((e) => e.ask?.id));
  const snapshot = await s.person.snapshot();
  const unheard = snapshot.open
    .filter((a) => a.project === later && !opened.has(a.id))
    .map((a) => ({ status: a.status, waiting: a.waiting, heard: reader.events.filter((e) => e.ask?.id === a.id).map((e) => e.type) }));
  const laterInSnapshot = reader.events[0]?.snapshot?.open.filter((a) => a.project === later).length;
  expect({ closed: reader.closed, first: reader.events[0]?.type, laterInSnapshot, snapshots, database, openedLater: openedLater(), unheard }).toEqual({ closed: false, first: "snapshot", laterInSnapshot: 0, snapshots: 1, database: [], openedLater: 20, unheard: [] });
  reader.socket.destroy();
  await Promise.all(agents.map((a) => a.close()));
}, 90_000);
