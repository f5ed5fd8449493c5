// The relay on its SQLite file keeps asks in memory in front of the file. Bounded by a count, 20,000
// asks of 250 KiB would be 5 GB; it is bounded by bytes instead, and what it lets go is read again
// from the file. A written ask is read from memory at once, and placed in the cache (and counted)
// once the turn of the event loop it was written in ends.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyReply, openAsk } from "@loopback/shared/ask-rules/index";
import { afterThisTurn } from "../../relay/src/asks/after-this-turn.ts";
import { CachedAsks } from "../../relay/src/asks/cached-asks.ts";
import { hashSecret, newId } from "../../relay/src/ids.ts";
import { openSqliteStore } from "../../relay/src/storage/sqlite/store.ts";

const dir = mkdtempSync(join(tmpdir(), "loopback-cache-"));
const store = openSqliteStore(dir);
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test("asks of 250 KiB fill the cache only up to its bytes; the coldest are read again from the file", async () => {
  const { caller } = await store.tokens.create({ space: "default", person: "Ada", kind: "agent", tokenId: newId("tok"), hash: newId("tok"), at: new Date().toISOString() });
  const maxBytes = 1024 * 1024;
  const cached = new CachedAsks(store.asks, maxBytes);
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const ask = openAsk(
      "review",
      { title: `Big ${i}`, project: "cache", content: [{ type: "markdown", text: "x".repeat(250 * 1024) }] },
      { id: newId("ask"), at: new Date().toISOString(), raisedBy: caller.person },
    );
    expect(await cached.insert(caller.spaceId, ask)).toBe("inserted");
    await afterThisTurn();
    ids.push(ask.id);
    expect(cached.bytes).toBeLessThanOrEqual(maxBytes);
  }
  expect(cached.bytes).toBeGreaterThan(maxBytes / 2);
  // The first was let go long ago: read from the file, whole.
  const first = await cached.get(ids[0]);
  expect(first?.ask.id).toBe(ids[0]);
  expect(JSON.stringify(first?.ask)).toContain("Big 0");
  expect(cached.bytes).toBeLessThanOrEqual(maxBytes);
});

test("an ask opened with a fingerprint is found by it, through a cache opened before or after it was stored", async () => {
  const { caller } = await store.tokens.create({ space: "default", person: "Bea", kind: "agent", tokenId: newId("tok"), hash: newId("tok"), at: new Date().toISOString() });
  const since = new Date(0).toISOString();
  const before = new CachedAsks(store.asks);
  const fingerprint = hashSecret(`fingerprint ${newId("ask")}`);
  const ask = openAsk("question", { question: "Again?", project: "cache" }, { id: newId("ask"), at: new Date().toISOString(), raisedBy: caller.person });
  expect(await before.findResumable(caller.spaceId, fingerprint, since)).toBeUndefined();
  expect(await before.insert(caller.spaceId, ask, fingerprint)).toBe("inserted");
  expect((await before.findResumable(caller.spaceId, fingerprint, since))?.stored.ask.id).toBe(ask.id);
  // A relay started on the file later knows it from the file.
  const after = new CachedAsks(store.asks);
  expect((await after.findResumable(caller.spaceId, fingerprint, since))?.stored.ask.id).toBe(ask.id);
  expect(await after.findResumable(caller.spaceId, hashSecret("another input"), since)).toBeUndefined();
});

test("an ask read lately is kept over one only written earlier: the cache lets go of the least recently used", async () => {
  const { caller } = await store.tokens.create({ space: "default", person: "Cy", kind: "agent", tokenId: newId("tok"), hash: newId("tok"), at: new Date().toISOString() });
  let readsFromFile = 0;
  const counting = new Proxy(store.asks, {
    get: (target, name, receiver) => (name === "get" ? (id: string) => (readsFromFile++, target.get(id)) : Reflect.get(target, name, receiver)),
  });
  // Room for three asks of 250 KiB, not four.
  const cached = new CachedAsks(counting, 800 * 1024);
  const big = async (i: number) => {
    const ask = openAsk("review", { title: `Used ${i}`, project: "cache", content: [{ type: "markdown", text: "y".repeat(250 * 1024) }] }, { id: newId("ask"), at: new Date().toISOString(), raisedBy: caller.person });
    expect(await cached.insert(caller.spaceId, ask)).toBe("inserted");
    await afterThisTurn();
    return ask.id;
  };
  const [first, second] = [await big(0), await big(1)];
  await big(2);
  expect((await cached.get(first))?.ask.id).toBe(first);
  await big(3);
  // The fourth let go of the second (written after the first, but not read since), not the first.
  expect((await cached.get(first))?.ask.id).toBe(first);
  expect(readsFromFile).toBe(0);
  expect((await cached.get(second))?.ask.id).toBe(second);
  expect(readsFromFile).toBe(1);
});

test("an ask written in this turn is read from memory at once, each turn and hand-over as written, before the cache places it", async () => {
  const { caller } = await store.tokens.create({ space: "default", person: "Di", kind: "agent", tokenId: newId("tok"), hash: newId("tok"), at: new Date().toISOString() });
  let readsFromFile = 0;
  const counting = new Proxy(store.asks, {
    get: (target, name, receiver) => (name === "get" ? (id: string) => (readsFromFile++, target.get(id)) : Reflect.get(target, name, receiver)),
  });
  const cached = new CachedAsks(counting);
  const ask = openAsk("question", { question: "Now?", project: "cache" }, { id: newId("ask"), at: new Date().toISOString(), raisedBy: caller.person });
  expect(await cached.insert(caller.spaceId, ask)).toBe("inserted");
  expect((await cached.get(ask.id))?.version).toBe(0);
  const opened = (await cached.get(ask.id))!;
  const at = new Date().toISOString();
  expect(await cached.append(opened, applyReply(opened.ask, { outcome: "dismissed" }, caller.person, at))).toBe("appended");
  expect(await cached.get(ask.id)).toMatchObject({ version: 1, delivered: 0, ask: { status: "closed" } });
  expect(await cached.claimDelivery(ask.id, 0, 1, at)).toBe(true);
  expect(await cached.get(ask.id)).toMatchObject({ version: 1, delivered: 1, deliveredAt: at });
  expect(readsFromFile).toBe(0);
  expect(cached.bytes).toBe(0);
  await afterThisTurn();
  // Placed as it was left: the turn and its hand-over, counted.
  expect(await cached.get(ask.id)).toMatchObject({ version: 1, delivered: 1, deliveredAt: at });
  expect(cached.bytes).toBeGreaterThan(0);
  expect(readsFromFile).toBe(0);
});

test("an ask inserted and a turn appended through the cache tell their caller at the commit, as the file's own records do", async () => {
  const { caller } = await store.tokens.create({ space: "default", person: "Ed", kind: "agent", tokenId: newId("tok"), hash: newId("tok"), at: new Date().toISOString() });
  const cached = new CachedAsks(store.asks);
  const ask = openAsk("question", { question: "Told?", project: "cache" }, { id: newId("ask"), at: new Date().toISOString(), raisedBy: caller.person });
  const heard: string[] = [];
  const inserted = cached.insert(caller.spaceId, ask, undefined, undefined, undefined, () => heard.push("committed"));
  heard.push(await inserted);
  expect(heard.splice(0)).toEqual(["committed", "inserted"]);
  const opened = (await cached.get(ask.id))!;
  const appended = cached.append(opened, applyReply(opened.ask, { outcome: "dismissed" }, caller.person, new Date().toISOString()), undefined, () => heard.push("committed"));
  heard.push(await appended);
  expect(heard).toEqual(["committed", "appended"]);
});
