// A per-token cap holds however many requests race for its last places, on one database or across
// replicas: the store counts what is held and stores one more in one step. 60 at once, half through
// each of two writers on one database (a second connection to the file, or a second replica), with a
// cap of 5: exactly 5 are stored.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openAsk } from "@loopback/shared/ask-rules/index";
import type { Caller } from "../../relay/src/auth/gate.ts";
import { newId } from "../../relay/src/ids.ts";
import type { Store } from "../../relay/src/storage/store.ts";
import { testPostgres } from "../support/relay-process.ts";
import { Stores } from "../support/stores.ts";

const stores = new Stores();
// PostgreSQL takes seconds to start: before the tests, not in the first one's time.
beforeAll(() => testPostgres(), 60_000);
afterAll(() => stores.dispose());

const CAP = 5;
const AT_ONCE = 60;
const now = () => new Date().toISOString();
const inAMinute = () => new Date(Date.now() + 60_000).toISOString();

async function aToken(store: Store, name = "Ada"): Promise<Caller> {
  return (await store.tokens.create({ space: "default", person: name, kind: "agent", tokenId: newId("tok"), hash: newId("tok"), at: now() })).caller;
}

/** Runs `attempt(i, writer)` 60 times at once, alternating between the two writers; counts the `true`s. */
async function race(writers: Store[], attempt: (i: number, writer: Store) => Promise<boolean>): Promise<number> {
  const outcomes = await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => attempt(i, writers[i % writers.length])));
  return outcomes.filter(Boolean).length;
}

describe.each(stores.table)("the %s store, two writers", (_name, kind) => {
  test("MCP sessions: 60 at once with a cap of 5 store exactly 5", async () => {
    const fresh = await kind.fresh();
    const writers = [fresh.store, await fresh.another()];
    const stored = await race(writers, (i, w) => w.sessions.insert({ id: `s${i}`, tokenHash: "tok_hash", initialize: "{}", createdAt: now(), lastSeenAt: now() }, CAP));
    expect(stored).toBe(CAP);
    expect(await fresh.store.sessions.countForToken("tok_hash")).toBe(CAP);
  });

  test("event tickets: 60 at once with a cap of 5 issue exactly 5", async () => {
    const fresh = await kind.fresh();
    const writers = [fresh.store, await fresh.another()];
    const caller = await aToken(fresh.store);
    const issued = await race(writers, (i, w) => w.tickets.issue(`tkt_${i}`, caller.tokenId, "3", inAMinute(), { max: CAP, now: now() }));
    expect(issued).toBe(CAP);
    expect(await fresh.store.tickets.heldBy(caller.tokenId, now())).toBe(CAP);
  });

  test("upload tickets: 60 at once with a cap of 5 issue exactly 5", async () => {
    const fresh = await kind.fresh();
    const writers = [fresh.store, await fresh.another()];
    const caller = await aToken(fresh.store);
    const row = (i: number) => ({ id: `upl_${i}`, spaceId: caller.spaceId, tokenHash: `up_${i}`, tokenId: caller.tokenId, contentType: "image/png", maxBytes: 1024, expiresAt: inAMinute() });
    const issued = await race(writers, (i, w) => w.uploads.issue(row(i), { max: CAP, now: now() }));
    expect(issued).toBe(CAP);
    expect(await fresh.store.uploads.unusedHeldBy(caller.tokenId, now())).toBe(CAP);
  });

  test("open asks: 60 at once with a cap of 5 per token store exactly 5; the space's cap holds across tokens", async () => {
    const fresh = await kind.fresh();
    const writers = [fresh.store, await fresh.another()];
    const [ada, bo] = [await aToken(fresh.store), await aToken(fresh.store, "Bo")];
    const ask = () => openAsk("question", { question: "Ship?", options: [{ label: "Yes" }, { label: "No" }], project: "caps" }, { id: newId("ask"), at: now(), raisedBy: ada.person });
    const capped = (caller: Caller, maxPerSpace: number) => ({ tokenId: caller.tokenId, maxPerToken: CAP, maxPerSpace });
    const outcomes = await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => writers[i % 2].asks.insert(ada.spaceId, ask(), undefined, undefined, capped(ada, 1000))));
    expect(outcomes.filter((o) => o === "inserted").length).toBe(CAP);
    expect(outcomes.filter((o) => o === "token_full").length).toBe(AT_ONCE - CAP);
    // Bo's asks meet the space's cap of 8: 3 more places, whoever races for them.
    const more = await Promise.all(Array.from({ length: AT_ONCE }, (_, i) => writers[i % 2].asks.insert(bo.spaceId, ask(), undefined, undefined, capped(bo, 8))));
    expect(more.filter((o) => o === "inserted").length).toBe(3);
    expect(more.filter((o) => o === "space_full").length).toBe(AT_ONCE - 3);
    expect((await fresh.store.asks.listOpen(ada.spaceId)).length).toBe(8);
  });
});
