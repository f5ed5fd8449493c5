// An inbox's socket may send keepalive frames up to a rate: so many a minute, counted afresh once a
// minute has passed on the relay's monotonic clock. In-process on a clock the test moves: the minute
// passes without being waited for. The relay's own timing, not the store's: SQLite alone.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { MAX_CLIENT_FRAMES_PER_MINUTE } from "../../relay/src/events/socket.ts";
import { inProcessScene, type InProcessScene } from "../support/in-process-scene.ts";
import type { EventSocket } from "../support/person.ts";

let s: InProcessScene;
beforeAll(async () => {
  s = await inProcessScene({ client: false });
});
afterAll(() => s.dispose());

/**
 * Sends `n` keepalive frames, then a ping: the relay reads a socket's frames in order, so once its
 * pong is back (or the socket closed) it has counted every one of them.
 */
async function send(socket: EventSocket, n: number): Promise<void> {
  for (let i = 0; i < n; i++) socket.ws.send("ping");
  await new Promise<void>((resolve) => {
    socket.ws.once("pong", () => resolve());
    socket.ws.once("close", () => resolve());
    socket.ws.ping();
  });
}

test("a minute after its window began, a socket may send as many frames again; past that many within the minute it is cut off", async () => {
  const socket = await s.person.socket();
  await socket.next((f) => f.type === "snapshot");
  await send(socket, MAX_CLIENT_FRAMES_PER_MINUTE);
  expect(socket.closed).toBe(false);

  await s.clock.advance(60_000 - 1);
  await send(socket, 1);
  expect(socket.closedWith).toEqual({ code: 1008, reason: "too many frames" });

  const next = await s.person.socket();
  await next.next((f) => f.type === "snapshot");
  await send(next, MAX_CLIENT_FRAMES_PER_MINUTE);
  await s.clock.advance(60_000 + 1);
  await send(next, MAX_CLIENT_FRAMES_PER_MINUTE);
  expect(next.closed).toBe(false);
  await send(next, 1);
  expect(next.closedWith).toEqual({ code: 1008, reason: "too many frames" });
});
