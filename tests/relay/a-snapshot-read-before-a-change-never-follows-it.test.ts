// After a resync every inbox gets its space afresh, and resyncs can come one after another (the
// database back, then its listener). A snapshot read before a change, but slow to be read out, must
// not reach the socket after the newer snapshot and the change that followed it: the inbox takes a
// snapshot as the whole truth, and would show a closed ask open again. The relay runs in this process
// so the test can hold the first snapshot, as read, until the second one is out.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Ask, ServerEvent } from "@loopback/shared/generated/types";
import { configFromEnv } from "../../relay/src/config.ts";
import { startServer, type Running } from "../../relay/src/server.ts";
import { EventSocket } from "../support/person.ts";
import { until } from "../support/scene.ts";

const dir = mkdtempSync(join(tmpdir(), "loopback-resyncs-"));
let running: Running;
beforeAll(async () => {
  running = await startServer(configFromEnv({ LOOPBACK_DATA: dir, LOOPBACK_PORT: "0", LOOPBACK_LOG_LEVEL: "error" }));
});
afterAll(async () => {
  await running.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** What an inbox holds open after these frames, in order: a snapshot replaces all, a change replaces its ask. */
function openAfter(frames: ServerEvent[]): string[] {
  const asks = new Map<string, Ask>();
  for (const f of frames) {
    if (f.type === "snapshot") {
      asks.clear();
      for (const a of [...f.snapshot.open, ...f.snapshot.recent] as unknown as Ask[]) asks.set(a.id, a);
    } else asks.set(f.ask.id, f.ask);
  }
  return [...asks.values()].filter((a) => a.status !== "closed").map((a) => a.id);
}

test("a snapshot read before a change, still on its way when a later resync's snapshot and the change went out, is never sent", async () => {
  const { relay } = running;
  const { token, caller } = await relay.gate.createToken({ person: "ada" });
  const opened = await relay.asks.open(caller, { kind: "question", input: { question: "Ship it?", project: "resyncs" } });
  opened.release?.();
  // A reader of revision 1, whose snapshot carries asks whole.
  const socket = await EventSocket.open(running.url, ["loopback.v1"], { Authorization: `Bearer ${token}` });
  await until(() => socket.frames.some((f) => f.type === "snapshot"), "the first snapshot");

  // The next snapshot is read as the store holds it now, then held back until the test lets it go.
  const read = relay.asks.wholeSnapshot.bind(relay.asks);
  let readOut!: () => void;
  const wasRead = new Promise<void>((r) => (readOut = r));
  let letGo!: () => void;
  const held = new Promise<void>((r) => (letGo = r));
  let first = true;
  relay.asks.wholeSnapshot = async (...args) => {
    const snapshot = await read(...args);
    if (first) {
      first = false;
      readOut();
      await held;
    }
    return snapshot;
  };

  relay.bus.resync();
  await wasRead;
  await relay.asks.reply(caller, opened.askId, { outcome: "dismissed" });
  relay.bus.resync();
  await until(() => socket.frames.length >= 2 && openAfter(socket.frames).length === 0, "the later snapshot says the ask is closed");

  letGo();
  // Whatever the held snapshot would do, it has done once a frame sent after it has arrived.
  await Bun.sleep(50);
  relay.bus.resync();
  const seen = socket.frames.length;
  await until(() => socket.frames.length > seen, "one more snapshot");
  socket.close();
  expect(openAfter(socket.frames.slice(0, seen))).toEqual([]);
  expect(socket.frames.slice(0, seen).map((f) => f.type)).toEqual(["snapshot", "snapshot"]);
});
