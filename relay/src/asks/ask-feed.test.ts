// The ask feed, in-process over a real SQLite file: two "replicas" share the file, each with its own
// feed, bus and waiting core, as two relays share PostgreSQL; the test plays the channel between them
// (PostgreSQL's notifications), so it can deliver a notice late, out of order, or not at all.
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AskEvent } from "@loopback/shared/generated/types";
import { configFromEnv } from "../config.ts";
import { Clock } from "../clock.ts";
import { Gate, type Caller } from "../auth/gate.ts";
import { DatabaseReach } from "../storage/database-reach.ts";
import { stateOf } from "../storage/ask-as-of.ts";
import { openSqliteStore } from "../storage/sqlite/store.ts";
import type { AskChange, AskRecords, Store } from "../storage/store.ts";
import { UploadService } from "../uploads/upload-service.ts";
import { AskEventBus } from "./ask-event-bus.ts";
import { AskFeed, type ChangeSource } from "./ask-feed.ts";
import { AskService } from "./ask-service.ts";
import { RecentAsks } from "./recent-asks.ts";
import { Waiting } from "./waiting.ts";

const dataDir = mkdtempSync(join(tmpdir(), "loopback-feed-"));
const config = configFromEnv({ LOOPBACK_DATA: dataDir });
const clock = new Clock();
let store: Store;
let agent: Caller;
let person: Caller;

beforeAll(async () => {
  store = openSqliteStore(dataDir);
  const gate = new Gate(store, clock);
  agent = (await gate.createToken({ person: "ada", agent: true })).caller;
  person = (await gate.createToken({ person: "ada" })).caller;
});
afterAll(async () => {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** One relay's ask side over the shared file: what its inboxes were shown, and its channel from the others. */
interface Replica {
  feed: AskFeed;
  asks: AskService;
  waiting: Waiting;
  bus: AskEventBus;
  /** The frames this replica's inboxes were sent, in order. */
  frames: AskEvent[];
  /** How many times its inboxes were told to read their space afresh. */
  resyncs: number;
  /** Delivers another replica's change, as PostgreSQL's notification would. */
  hear(change: AskChange): void;
  /** The channel's listener connected again (it was away, and notices may have been missed). */
  reconnected(): void;
}

const replicas: Replica[] = [];
afterEach(async () => {
  for (const r of replicas.splice(0)) {
    r.waiting.releaseAll();
    await r.feed.close();
  }
});

/**
 * `reads` is where the feed reads asks, `waits` where the calls waiting here and the ask service do:
 * the file unless given. With `recent`, a reply starts from the copies held here, as on PostgreSQL.
 * `alone`: a relay that hears no other (on SQLite).
 */
async function replica(reach?: DatabaseReach, reads: Pick<AskRecords, "get"> = store.asks, waits: AskRecords = store.asks, recent?: RecentAsks, alone = false): Promise<Replica> {
  const bus = new AskEventBus();
  const waiting = new Waiting(waits, { flipped: (askId) => feed.flipped(askId) }, clock, { maxPerToken: 10 });
  const feed = new AskFeed(reads, bus, waiting, clock, recent);
  const asks = new AskService(waits, new UploadService(store.uploads, clock, config), bus, feed, clock, waiting, config.reclaimMs, undefined, recent);
  let channel!: { onChange: (change: AskChange) => void; onReady?: () => void };
  const source: ChangeSource = {
    listen: async (onChange, onReady) => {
      channel = { onChange, onReady };
      onReady?.();
      return { close: async () => {} };
    },
    reach,
  };
  if (!alone) await feed.listen(source);
  const r: Replica = {
    feed,
    asks,
    waiting,
    bus,
    frames: [],
    resyncs: 0,
    hear: (change) => channel.onChange(change),
    reconnected: () => channel.onReady?.(),
  };
  bus.listen((_spaceId, event) => r.frames.push(event));
  bus.onResync(() => r.resyncs++);
  replicas.push(r);
  return r;
}

/** The notice another replica's commit of `askId` at `version` sends, as the store writes it. */
async function noticeOf(askId: string, version: number): Promise<AskChange> {
  const stored = (await store.asks.get(askId))!;
  expect(stored.version).toBe(version);
  return { askId, spaceId: stored.spaceId, replica: "elsewhere", ...stateOf(stored.ask, version) };
}

const shown = (r: Replica) => r.feed.settled();

/** What a frame says of its ask: its kind, how many turns, whose move, and whether a call waits on it. */
const seen = (event: AskEvent) => `${event.type} ${event.ask.thread.length} ${event.ask.status}${event.ask.waiting ? " waiting" : ""}`;

let n = 0;
const question = async (on: Replica): Promise<string> => {
  const opened = await on.asks.open(agent, { kind: "question", input: { question: "Which?", project: `feed-${++n}` } });
  opened.release?.();
  return opened.askId;
};
const followUp = (on: Replica, askId: string) => on.asks.reply(person, askId, { outcome: "follow_up", question: "Why?" });
const answer = (on: Replica, askId: string) => on.asks.answerFollowUp(agent, { askId, answer: "Because." });
const close = (on: Replica, askId: string) => on.asks.reply(person, askId, { outcome: "answered", selected: [], text: "Fine." });

test("a turn made here is shown after the version it was decided on, whose own notice then changes nothing", async () => {
  const [a, b] = [await replica(), await replica()];
  const askId = await question(b);
  const opening = await noticeOf(askId, 0);
  // The person answers on this replica before the notice of the ask's opening reached it.
  await followUp(a, askId);
  a.hear(opening);
  await shown(a);
  expect(a.frames.map(seen)).toEqual(["ask.opened 0 awaiting_human", "ask.updated 1 awaiting_agent"]);
});

test("other replicas' changes are shown in the order they were heard, each as it left the ask", async () => {
  const [a, b] = [await replica(), await replica()];
  const askId = await question(b);
  const notices = [await noticeOf(askId, 0)];
  await followUp(b, askId);
  notices.push(await noticeOf(askId, 1));
  await answer(b, askId);
  notices.push(await noticeOf(askId, 2));
  // Every notice is heard after the ask moved on to its last version: each is still shown as its own.
  for (const notice of notices) a.hear(notice);
  await shown(a);
  expect(a.frames.map(seen)).toEqual(["ask.opened 0 awaiting_human", "ask.updated 1 awaiting_agent", "ask.updated 2 awaiting_human"]);
});

/** Reads of the file whose first takes until the test calls `finish`; later reads are answered at once. */
function slowFirstRead(): { reads: Pick<AskRecords, "get">; finish: () => void } {
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  let first = true;
  const reads = {
    get: async (id: string) => {
      const stored = await store.asks.get(id);
      if (first) {
        first = false;
        await finished;
      }
      return stored;
    },
  };
  return { reads, finish };
}

test("a change whose read is slow still goes out before the next change of the same ask", async () => {
  const { reads: slowFirst, finish } = slowFirstRead();
  const [a, b] = [await replica(undefined, slowFirst), await replica()];
  const askId = await question(b);
  const opening = await noticeOf(askId, 0);
  await followUp(b, askId);
  a.hear(opening);
  a.hear(await noticeOf(askId, 1));
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  expect(a.frames).toEqual([]);
  finish();
  await shown(a);
  expect(a.frames.map(seen)).toEqual(["ask.opened 0 awaiting_human", "ask.updated 1 awaiting_agent"]);
});

test("a turn made here while an earlier change's read is still slow goes out after that change, the ask's opening first", async () => {
  const { reads: slowFirst, finish } = slowFirstRead();
  const [a, b] = [await replica(undefined, slowFirst), await replica()];
  const askId = await question(b);
  // The opening's notice is heard at once, but reading the ask to show it takes long; meanwhile the
  // person asks why on the other replica and the agent answers on this one.
  a.hear(await noticeOf(askId, 0));
  await followUp(b, askId);
  await answer(a, askId);
  const early = a.frames.map(seen);
  finish();
  await shown(a);
  expect({ early, all: a.frames.map(seen) }).toEqual({
    early: [],
    all: ["ask.opened 0 awaiting_human", "ask.updated 1 awaiting_agent", "ask.updated 2 awaiting_human"],
  });
});

/**
 * The file's asks, whose writes are stored at once but answered only when the test calls `answer`:
 * as a commit on PostgreSQL whose answer is still on its way while other replicas see it.
 */
function lateAnswers(): { asks: AskRecords; stored: () => Promise<string>; answer: () => void } {
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  let stored!: (askId: string) => void;
  const written = new Promise<string>((resolve) => (stored = resolve));
  const inner = store.asks;
  const asks = Object.assign(Object.create(inner) as AskRecords, {
    insert: async (...args: Parameters<AskRecords["insert"]>) => {
      const outcome = await inner.insert(...args);
      stored(args[1].id);
      await answered;
      return outcome;
    },
    append: async (...args: Parameters<AskRecords["append"]>) => {
      const outcome = await inner.append(...args);
      stored(args[1].id);
      await answered;
      return outcome;
    },
  });
  return { asks, stored: () => written, answer };
}

test("a turn made here is shown before a later change whose notice came before the store answered the turn's commit", async () => {
  const { asks: slow, stored, answer: storeAnswers } = lateAnswers();
  const [a, b] = [await replica(undefined, store.asks, slow), await replica()];
  const askId = await question(b);
  a.hear(await noticeOf(askId, 0));
  await followUp(b, askId);
  a.hear(await noticeOf(askId, 1));
  await shown(a);
  // The agent answers here; the answer is stored, and the person, seeing it on the other replica,
  // closes the ask there. That notice reaches this replica before the store's answer to its commit.
  const answering = answer(a, askId);
  await stored();
  await close(b, askId);
  a.hear(await noticeOf(askId, 3));
  await turns(20);
  storeAnswers();
  await answering;
  await shown(a);
  expect(a.frames.map(seen)).toEqual(["ask.opened 0 awaiting_human", "ask.updated 1 awaiting_agent", "ask.updated 2 awaiting_human", "ask.updated 3 closed"]);
});

test("an ask opened here is shown opened before a change whose notice came before the store answered the opening", async () => {
  const { asks: slow, stored, answer: storeAnswers } = lateAnswers();
  const [a, b] = [await replica(undefined, store.asks, slow), await replica()];
  const opening = question(a);
  // The ask is on the other replica's inbox at once (its notice), and the person asks why there.
  const askId = await stored();
  await followUp(b, askId);
  a.hear(await noticeOf(askId, 1));
  await turns(20);
  storeAnswers();
  expect(await opening).toBe(askId);
  await shown(a);
  // Its call here lets go of the ask meanwhile, shown again as not waiting: the states are what counts.
  const states = a.frames.map((event) => `${event.ask.thread.length} ${event.ask.status}`).filter((state, i, all) => state !== all[i - 1]);
  expect({ first: a.frames[0]?.type, states }).toEqual({ first: "ask.opened", states: ["0 awaiting_human", "1 awaiting_agent"] });
});

test("a notice heard after a later version was shown never brings the older one back", async () => {
  const [a, b] = [await replica(), await replica()];
  const askId = await question(b);
  const opening = await noticeOf(askId, 0);
  await followUp(b, askId);
  const followedUp = await noticeOf(askId, 1);
  await answer(a, askId);
  // This replica made version 2 itself; the notices of 0 and 1 arrive afterwards, the later first.
  a.hear(followedUp);
  a.hear(opening);
  await shown(a);
  expect(a.frames.map(seen)).toEqual(["ask.updated 1 awaiting_agent", "ask.updated 2 awaiting_human"]);
});

test("a call following the ask here is shown at the version already shown, not one whose notice is still coming", async () => {
  const [a, b] = [await replica(), await replica()];
  const askId = await question(b);
  a.hear(await noticeOf(askId, 0));
  await followUp(b, askId);
  const followedUp = await noticeOf(askId, 1);
  await answer(b, askId);
  // A task polls the ask here from the follow-up on (no reply yet): `waiting` flips, read at version 2.
  expect(await a.waiting.poll(agent, askId, { from: 1, leaseMs: 60_000 })).toBeUndefined();
  await shown(a);
  a.hear(followedUp);
  a.hear(await noticeOf(askId, 2));
  await shown(a);
  expect(a.frames.map(seen)).toEqual([
    "ask.opened 0 awaiting_human",
    "ask.updated 0 awaiting_human waiting",
    "ask.updated 1 awaiting_agent waiting",
    "ask.updated 2 awaiting_human waiting",
  ]);
});

test("after the listener reconnects, a call waiting here reads its ask again and finds the reply whose notice was lost", async () => {
  const [a, b] = [await replica(), await replica()];
  const askId = await question(b);
  let returned = false;
  const waited = a.waiting.follow(agent, askId, { from: 0, budgetMs: 0 }).finally(() => (returned = true));
  // Parked: it has looked once, found no reply, and waits to be woken.
  while (!a.waiting.isFollowed(askId)) await new Promise((r) => setImmediate(r));
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  await close(b, askId);
  // Its notice is lost: nothing tells this replica, and the call goes on waiting.
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  expect(returned).toBe(false);
  expect(a.resyncs).toBe(0);
  a.reconnected();
  expect(a.resyncs).toBe(1);
  expect(await waited).toEqual({ askId, reply: { outcome: "answered", selected: [], text: "Fine." } });
});

test("once the database is back, inboxes read their space afresh and what was shown before is forgotten", async () => {
  let back = false;
  const reach = new DatabaseReach(async () => {
    if (!back) throw new Error("still away");
  });
  const [a, b] = [await replica(reach), await replica()];
  const askId = await question(b);
  a.hear(await noticeOf(askId, 0));
  await shown(a);
  // The database goes away; meanwhile the person answers on the other replica, whose notice is lost.
  const away = reach.guard({ get: async () => Promise.reject(Object.assign(new Error("refused"), { code: "ECONNREFUSED" })) });
  await expect(away.get()).rejects.toThrow();
  await close(b, askId);
  const resynced = new Promise<void>((resolve) => reach.onBack(resolve));
  back = true;
  await resynced;
  reach.stop();
  expect(a.resyncs).toBe(1);
  // A flip shown now is the ask as it now is: the open version shown before the outage is forgotten.
  a.waiting.hold(askId)();
  await shown(a);
  expect(a.frames.map(seen)).toEqual(["ask.opened 0 awaiting_human", "ask.updated 1 closed"]);
});

/** The file's asks, counting the reads of one ask and of many. */
function countedAsks(): AskRecords & { reads: { one: number; many: number } } {
  const reads = { one: 0, many: 0 };
  const inner = store.asks;
  return Object.assign(Object.create(inner) as AskRecords, {
    reads,
    get: (id: string) => (reads.one++, inner.get(id)),
    listByIds: (ids: string[]) => (reads.many++, inner.listByIds(ids)),
  });
}

/** Turns of the event loop, for work that has no promise to wait on. */
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

test("after the listener reconnects, every call waiting here looks again from one read of all their asks, not a read each", async () => {
  const waits = countedAsks();
  const [a, b] = [await replica(undefined, store.asks, waits), await replica()];
  const askIds = [await question(b), await question(b), await question(b), await question(b), await question(b)];
  const waited = askIds.map((askId) => a.waiting.follow(agent, askId, { from: 0, budgetMs: 0 }));
  while (!askIds.every((id) => a.waiting.isFollowed(id))) await turns(1);
  await turns(5);
  // Every ask is answered on the other replica, and every notice is lost.
  for (const askId of askIds) await close(b, askId);
  const before = { ...waits.reads };
  a.reconnected();
  for (const [i, askId] of askIds.entries()) expect(await waited[i]).toEqual({ askId, reply: { outcome: "answered", selected: [], text: "Fine." } });
  expect({ one: waits.reads.one - before.one, many: waits.reads.many - before.many }).toEqual({ one: 0, many: 1 });
});

test("a listener back while the database is still away leaves the reading again to the database's return", async () => {
  let back = false;
  const reach = new DatabaseReach(async () => {
    if (!back) throw new Error("still away");
  });
  const a = await replica(reach);
  const away = reach.guard({ get: async () => Promise.reject(Object.assign(new Error("refused"), { code: "ECONNREFUSED" })) });
  await expect(away.get()).rejects.toThrow();
  // Its reads would be refused: nothing is read now.
  a.reconnected();
  expect(a.resyncs).toBe(0);
  const resynced = new Promise<void>((resolve) => reach.onBack(resolve));
  back = true;
  await resynced;
  reach.stop();
  expect(a.resyncs).toBe(1);
});

test("a wait told to read its ask afresh is not talked out of it by a copy of the ask read before the reply", async () => {
  const [a, b] = [await replica(), await replica()];
  const askId = await question(b);
  const stale = (await store.asks.get(askId))!;
  let returned = false;
  const waited = a.waiting.follow(agent, askId, { from: 0, budgetMs: 0 }).finally(() => (returned = true));
  while (!a.waiting.isFollowed(askId)) await turns(1);
  await turns(5);
  await close(b, askId);
  // The reply's notice wakes the wait to read afresh; in the same turn, a read of every followed ask
  // made before the reply arrives with the ask as it was.
  a.waiting.wake(askId);
  a.waiting.wake(askId, stale);
  await turns(20);
  expect(returned).toBe(true);
  expect(await waited).toEqual({ askId, reply: { outcome: "answered", selected: [], text: "Fine." } });
});

/** A replica whose replies start from the copies it holds, as on PostgreSQL, counting its reads of the file. */
async function holdingReplica() {
  const waits = countedAsks();
  return { r: await replica(undefined, store.asks, waits, new RecentAsks()), reads: waits.reads };
}
const answered = { outcome: "answered" as const, selected: [], text: "Fine." };

test("a reply to an ask opened here is decided on the copy held here, without reading the database", async () => {
  const { r: a, reads } = await holdingReplica();
  const askId = await question(a);
  const before = reads.one;
  const replied = await a.asks.reply(person, askId, answered, a.asks.read(askId));
  expect({ status: replied.status, reads: reads.one - before }).toEqual({ status: "closed", reads: 0 });
  expect((await store.asks.get(askId))!.ask.status).toBe("closed");
});

test("a reply decided on a copy another replica moved on from is decided again on the ask as the database holds it", async () => {
  const [{ r: a }, b] = [await holdingReplica(), await replica()];
  const askId = await question(a);
  // On the other replica the person asks why and the agent answers: the ask is the person's move
  // again, two versions on, and neither notice reaches this replica.
  await followUp(b, askId);
  await answer(b, askId);
  const replied = await a.asks.reply(person, askId, answered, a.asks.read(askId));
  expect(replied.status).toBe("closed");
  const stored = (await store.asks.get(askId))!;
  expect({ version: stored.version, turns: stored.ask.thread.length, status: stored.ask.status }).toEqual({ version: 3, turns: 3, status: "closed" });
});

test("a copy let go while the reply on it was on its way is still a copy: the reply is decided again on the ask as the database holds it", async () => {
  const [{ r: a }, b] = [await holdingReplica(), await replica()];
  const askId = await question(a);
  await followUp(b, askId);
  await answer(b, askId);
  // The route begins the reply's read as the token is checked: the copy, two versions behind. The
  // notice of the agent's answer comes before the reply is decided, and lets that copy go.
  const read = a.asks.read(askId);
  a.hear(await noticeOf(askId, 2));
  await shown(a);
  const replied = await a.asks.reply(person, askId, answered, read);
  expect(replied.status).toBe("closed");
  expect((await store.asks.get(askId))!.version).toBe(3);
});

test("a copy another replica's heard change moved on from is let go: the reply reads the database once and is refused as it stands", async () => {
  const [{ r: a, reads }, b] = [await holdingReplica(), await replica()];
  const askId = await question(a);
  await close(b, askId);
  a.hear(await noticeOf(askId, 1));
  await shown(a);
  const before = reads.one;
  await expect(a.asks.reply(person, askId, answered, a.asks.read(askId))).rejects.toMatchObject({ code: "ask.closed" });
  expect(reads.one - before).toBe(1);
});

test.each([
  ["alone", true],
  ["hearing other replicas", false],
])("a reply a call here takes reaches that call before the inboxes' frame and the person's own answer (%s)", async (_, alone) => {
  const a = await replica(undefined, store.asks, store.asks, undefined, alone);
  const askId = await question(a);
  await shown(a);
  const order: string[] = [];
  const waited = a.waiting.follow(agent, askId, { from: 0, budgetMs: 0 }).then(() => order.push("the call has its reply"));
  while (!a.waiting.isFollowed(askId)) await turns(1);
  // The change's own frame (the call still following it as it commits), not the flip that follows once the call has left.
  a.bus.listen((_spaceId, event) => event.ask.status === "closed" && event.ask.waiting && order.push("the inboxes' frame"));
  // The agent is what is blocked on the reply: its call has it before anyone is told of it.
  await Promise.all([a.asks.reply(person, askId, answered).then(() => order.push("the person's answer")), waited]);
  await shown(a);
  expect(order[0]).toBe("the call has its reply");
  expect(order.toSorted()).toEqual(["the call has its reply", "the inboxes' frame", "the person's answer"]);
});

test("a new ask is shown the moment the store commits it, before the store's answer comes back", async () => {
  const order: string[] = [];
  // The file's records, with the moment each insert's promise settles marked.
  const marked = new Proxy(store.asks, {
    get(target, key) {
      if (key === "insert") return (...args: Parameters<AskRecords["insert"]>) => target.insert(...args).then((outcome) => (order.push("the store's answer"), outcome));
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const a = await replica(undefined, store.asks, marked, undefined, true);
  a.bus.listen((_spaceId, event) => event.type === "ask.opened" && order.push("the inboxes' frame"));
  await question(a);
  expect(order).toEqual(["the inboxes' frame", "the store's answer"]);
});

test("a reply handed over is counted for the metrics once its call has it, and only once", async () => {
  const a = await replica(undefined, store.asks, store.asks, undefined, true);
  const askId = await question(a);
  await shown(a);
  const order: string[] = [];
  const counted: number[] = [];
  a.waiting.onHandOver = (ms) => {
    counted.push(ms);
    order.push("counted");
  };
  const waited = a.waiting.follow(agent, askId, { from: 0, budgetMs: 0 }).then(() => order.push("the call has its reply"));
  while (!a.waiting.isFollowed(askId)) await turns(1);
  await Promise.all([a.asks.reply(person, askId, answered), waited]);
  await shown(a);
  expect(order).toEqual(["the call has its reply", "counted"]);
  expect(counted[0]).toBeGreaterThanOrEqual(0);
});
