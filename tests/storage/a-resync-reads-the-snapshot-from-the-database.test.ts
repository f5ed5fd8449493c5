// A snapshot of summaries reads no body of an ask whose summary it keeps at the version the store
// lists. When the bus resyncs (the database or the replicas' channel was away, or the database was
// restored from a copy) what was kept may no longer be what the store holds at that version: the
// summaries are forgotten, and the next snapshot reads the asks it lists from the database.
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFromEnv } from "../../relay/src/config.ts";
import { newId } from "../../relay/src/ids.ts";
import { Relay } from "../../relay/src/relay.ts";
import { DB_FILE } from "../../relay/src/storage/sqlite/data-dir.ts";

const dir = mkdtempSync(join(tmpdir(), "loopback-resync-"));
const relay = await Relay.open(configFromEnv({ LOOPBACK_DATA: dir }));
const store = relay.store;
afterAll(async () => {
  await relay.close();
  rmSync(dir, { recursive: true, force: true });
});

test("after a resync the snapshot lists each ask as the database holds it, not as the summary kept of it", async () => {
  const { caller } = await store.tokens.create({ space: "default", person: "ada", kind: "person", tokenId: newId("tok"), hash: newId("tok"), at: new Date().toISOString() });
  const opened = await relay.asks.open(caller, { kind: "question", input: { question: "Ship it?", project: "resync" } });
  opened.release?.();
  const ask = { id: opened.askId };
  expect((await relay.asks.snapshot(caller)).open.map((a) => [a.id, a.status])).toEqual([[ask.id, "awaiting_human"]]);

  // The database now holds the ask closed at the version the summary was made from, as a copy
  // restored from before would, or as a change this replica never heard of while it was away.
  const closedAt = new Date().toISOString();
  const file = new Database(join(dir, DB_FILE));
  file.run("update asks set status = 'closed', closed_at = ? where id = ?", [closedAt, ask.id]);
  file.close();

  relay.bus.resync();
  const after = await relay.asks.snapshot(caller);
  expect(after.open).toEqual([]);
  expect(after.recent.map((a) => [a.id, a.status])).toEqual([[ask.id, "closed"]]);
});
