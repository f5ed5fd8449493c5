// One suite, two stores: every record the relay keeps behaves the same on the SQLite file and on
// PostgreSQL, including with two writers on one database (a second connection, or a second replica).
import { afterAll, describe, expect, test } from "bun:test";
import type { Ask, QuestionAsk } from "@loopback/shared/generated/types";
import { applyFollowUpAnswer, applyReply, openAsk } from "@loopback/shared/ask-rules/index";
import type { Caller } from "../../relay/src/auth/gate.ts";
import { newId } from "../../relay/src/ids.ts";
import type { Store, VersionedAsk } from "../../relay/src/storage/store.ts";
import { Stores } from "../support/stores.ts";

const stores = new Stores();
afterAll(() => stores.dispose());

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 9, 0, second)).toISOString();
const person = { id: "psn_x", name: "Ada" };

async function aPerson(store: Store, space = "default", name = "Ada"): Promise<Caller> {
  return (await store.tokens.create({ space, person: name, kind: "person", tokenId: newId("tok"), hash: newId("tok"), at: at(0) })).caller;
}

function aQuestion(id = newId("ask"), second = 1): QuestionAsk {
  return openAsk("question", { question: "Ship on Friday?", options: [{ label: "Yes" }, { label: "No" }], project: "loopback" }, { id, at: at(second), raisedBy: person });
}

async function opened(store: Store, caller: Caller, ask: Ask = aQuestion(), fingerprint?: string): Promise<VersionedAsk> {
  await store.asks.insert(caller.spaceId, ask, fingerprint);
  return (await store.asks.get(ask.id))!;
}

describe.each(stores.table)("the %s store", (_name, kind) => {
  describe("asks", () => {
    test("an ask reads back as it was opened, at version 0, handed over to nobody", async () => {
      const { store } = await kind.fresh();
      const caller = await aPerson(store);
      const ask = aQuestion();
      await store.asks.insert(caller.spaceId, ask, "fp");
      expect(await store.asks.get(ask.id)).toEqual({ spaceId: caller.spaceId, ask, delivered: 0, deliveredAt: null, version: 0 });
      expect(await store.asks.get("ask_missing")).toBeUndefined();
    });

    test("a change commits on the version it was decided on, moves the version on and keeps every turn in order", async () => {
      const { store } = await kind.fresh();
      const caller = await aPerson(store);
      const first = await opened(store, caller);
      const askedBack = applyReply(first.ask, { outcome: "follow_up", question: "Why Friday?" }, person, at(2));
      expect(await store.asks.append(first, askedBack)).toBe("appended");
      const second = (await store.asks.get(first.ask.id))!;
      expect(second.version).toBe(1);
      const answered = applyFollowUpAnswer(second.ask, { askId: first.ask.id, answer: "The release train." }, at(3));
      expect(await store.asks.append(second, answered)).toBe("appended");
      const closed = applyReply(answered, { outcome: "answered", selected: ["Yes"] }, person, at(4));
      expect(await store.asks.append({ ...second, ask: answered, version: 2 }, closed)).toBe("appended");
      const last = (await store.asks.get(first.ask.id))!;
      expect(last.version).toBe(3);
      expect(last.ask).toEqual(closed);
    });

    test("a reply appended as handed over records it as handed over in the same commit; a lost turn records nothing", async () => {
      const { store } = await kind.fresh();
      const caller = await aPerson(store);
      const first = await opened(store, caller);
      const answered = applyReply(first.ask, { outcome: "answered", selected: ["Yes"] }, person, at(2));
      expect(await store.asks.append(first, answered, at(3))).toBe("appended");
      expect(await store.asks.get(first.ask.id)).toEqual({ spaceId: caller.spaceId, ask: answered, delivered: 1, deliveredAt: at(3), version: 1 });
      expect(await store.asks.append(first, applyReply(first.ask, { outcome: "dismissed" }, person, at(4)), at(5))).toBe("not_your_turn");
      expect((await store.asks.get(first.ask.id))?.deliveredAt).toBe(at(3));
    });

    test("a stored ask tells its caller once, in the commit's turn, before its promise settles; one refused at a cap never does", async () => {
      const { store } = await kind.fresh();
      const caller = await aPerson(store);
      const cap = { tokenId: caller.tokenId, maxPerToken: 1, maxPerSpace: 10 };
      const heard: string[] = [];
      const inserted = store.asks.insert(caller.spaceId, aQuestion(), "fp-1", undefined, cap, () => heard.push("committed")).then((outcome) => heard.push(outcome));
      await inserted;
      expect(heard).toEqual(["committed", "inserted"]);
      expect(await store.asks.insert(caller.spaceId, aQuestion(), "fp-2", undefined, cap, () => heard.push("committed"))).toBe("token_full");
      expect(heard).toEqual(["committed", "inserted"]);
    });

    test("a stored turn tells its caller once, in the commit's turn, before its promise settles; a lost turn never does", async () => {
      const { store } = await kind.fresh();
      const caller = await aPerson(store);
      const first = await opened(store, caller);
      const heard: string[] = [];
      const answered = applyReply(first.ask, { outcome: "answered", selected: ["Yes"] }, person, at(2));
      const appended = store.asks.append(first, answered, at(3), () => heard.push("committed")).then((outcome) => heard.push(outcome));
      await appended;
      expect(heard).toEqual(["committed", "appended"]);
      const lost = await store.asks.append(first, applyReply(first.ask, { outcome: "dismissed" }, person, at(4)), undefined, () => heard.push("committed"));
      expect(lost).toBe("not_your_turn");
      expect(heard).toEqual(["committed", "appended"]);
    });

    test("a change decided on an older version is not the writer's turn, and writes nothing", async () => {
      const { store } = await kind.fresh();
      const caller = await aPerson(store);
      const first = await opened(store, caller);
      expect(await store.asks.append(first, applyReply(first.ask, { outcome: "follow_up", question: "Why?" }, person, at(2)))).toBe("appended");
      const late = applyReply(first.ask, { outcome: "dismissed" }, person, at(3));
      expect(await store.asks.append(first, late)).toBe("not_your_turn");
      const now = (await store.asks.get(first.ask.id))!;
      expect(now.version).toBe(1);
      expect(now.ask.status).toBe("awaiting_agent");
      expect(now.ask.thread).toHaveLength(1);
    });

    test("two people replying to one ask at the same instant through two writers: one wins, one is told it is not their turn, the thread holds one turn", async () => {
      const fresh = await kind.fresh();
      const other = await fresh.another();
      const caller = await aPerson(fresh.store);
      for (let round = 0; round < 20; round++) {
        const ask = aQuestion(newId("ask"), 1);
        await fresh.store.asks.insert(caller.spaceId, ask);
        const [seenByA, seenByB] = await Promise.all([fresh.store.asks.get(ask.id), other.asks.get(ask.id)]);
        const outcomes = await Promise.all([
          fresh.store.asks.append(seenByA!, applyReply(seenByA!.ask, { outcome: "answered", selected: ["Yes"] }, person, at(2))),
          other.asks.append(seenByB!, applyReply(seenByB!.ask, { outcome: "answered", selected: ["No"] }, person, at(2))),
        ]);
        expect([...outcomes].sort()).toEqual(["appended", "not_your_turn"]);
        const after = (await other.asks.get(ask.id))!;
        expect(after.version).toBe(1);
        expect(after.ask.thread).toHaveLength(1);
        // The winner's reply is the one stored, and both writers read the same.
        expect((after.ask.thread[0] as any).reply.selected).toEqual([outcomes[0] === "appended" ? "Yes" : "No"]);
        expect(await fresh.store.asks.get(ask.id)).toEqual(after);
      }
    });

    test("an ask stored with the record of the call that follows it keeps both; one refused at its cap keeps neither", async () => {
      const { store } = await kind.fresh();
      const caller = await aPerson(store);
      const record = (id: string, askId: string) => ({ id, sessionId: "s1", requestId: '"r-1"', tool: "ask_question", askId, fromTurn: 0, progressToken: '"progress-1"', createdAt: at(1) });
      const cap = { tokenId: caller.tokenId, maxPerToken: 1, maxPerSpace: 10 };
      const first = aQuestion();
      expect(await store.asks.insert(caller.spaceId, first, "fp-1", record("cal_1", first.id), cap)).toBe("inserted");
      expect(await store.calls.get("cal_1")).toEqual(record("cal_1", first.id));
      expect(await store.asks.get(first.id)).toMatchObject({ ask: first, version: 0 });
      const second = aQuestion();
      expect(await store.asks.insert(caller.spaceId, second, "fp-2", record("cal_2", second.id), cap)).toBe("token_full");
      expect(await store.calls.get("cal_2")).toBeUndefined();
      expect(await store.asks.get(second.id)).toBeUndefined();
    });

    test("a reply is claimed as handed over once, whichever writer claims it first", async () => {
      const fresh = await kind.fresh();
      const other = await fresh.another();
      const caller = await aPerson(fresh.store);
      const first = await opened(fresh.store, caller);
      await fresh.store.asks.append(first, applyReply(first.ask, { outcome: "dismissed" }, person, at(2)));
      const claims = await Promise.all([fresh.store.asks.claimDelivery(first.ask.id, 0, 1, at(3)), other.asks.claimDelivery(first.ask.id, 0, 1, at(3))]);
      expect(claims.sort()).toEqual([false, true]);
      expect(await other.asks.get(first.ask.id)).toMatchObject({ delivered: 1, deliveredAt: at(3) });
    });

    test("asking again finds the same input's ask while it is the person's move, and after its reply only within the reclaim window", async () => {
      const { store } = await kind.fresh();
      const caller = await aPerson(store);
      const first = await opened(store, caller, aQuestion(), "same-input");
      expect(await store.asks.findResumable(caller.spaceId, "same-input", at(0))).toEqual({ stored: first, reclaimed: false });
      expect(await store.asks.findResumable(caller.spaceId, "other-input", at(0))).toBeUndefined();
      await store.asks.append(first, applyReply(first.ask, { outcome: "dismissed" }, person, at(2)));
      // Replied, not yet handed over: asking again gets the reply.
      expect((await store.asks.findResumable(caller.spaceId, "same-input", at(0)))?.reclaimed).toBe(false);
      await store.asks.claimDelivery(first.ask.id, 0, 1, at(3));
      expect((await store.asks.findResumable(caller.spaceId, "same-input", at(3)))?.reclaimed).toBe(true);
      expect(await store.asks.findResumable(caller.spaceId, "same-input", at(4))).toBeUndefined();
    });

    test("open asks list newest first; closed asks page back by when they closed; another space's are not listed", async () => {
      const { store } = await kind.fresh();
      const caller = await aPerson(store);
      const stranger = await aPerson(store, "elsewhere", "Bob");
      const asks = [];
      for (let i = 1; i <= 4; i++) asks.push(await opened(store, caller, aQuestion(newId("ask"), i)));
      await opened(store, stranger, aQuestion(newId("ask"), 5));
      for (const [i, a] of [asks[0], asks[2]].entries()) await store.asks.append(a, applyReply(a.ask, { outcome: "dismissed" }, person, at(10 + i)));
      expect((await store.asks.listOpen(caller.spaceId)).map((a) => a.id)).toEqual([asks[3].ask.id, asks[1].ask.id]);
      const closed = await store.asks.listClosed(caller.spaceId, 10);
      expect(closed.map((a) => a.id)).toEqual([asks[2].ask.id, asks[0].ask.id]);
      expect(closed[0].thread).toHaveLength(1);
      expect((await store.asks.listClosed(caller.spaceId, 10, at(11))).map((a) => a.id)).toEqual([asks[0].ask.id]);
      expect((await store.asks.listClosed(caller.spaceId, 1)).map((a) => a.id)).toEqual([asks[2].ask.id]);
    });
  });

  describe("tokens", () => {
    test("a token revoked through one writer is refused by every reader at once", async () => {
      const fresh = await kind.fresh();
      const replicas = [fresh.store, await fresh.another(), await fresh.another()];
      const { caller } = await fresh.store.tokens.create({ space: "default", person: "Ada", kind: "agent", tokenId: "tok_a", hash: "hash_a", at: at(0) });
      await fresh.store.tokens.create({ space: "default", person: "Ada", kind: "person", tokenId: "tok_b", hash: "hash_b", at: at(0) });
      expect(caller).toMatchObject({ tokenId: "tok_a", tokenHash: "hash_a", tokenKind: "agent", spaceName: "default", person: { name: "Ada" } });
      for (const r of replicas) expect(await r.tokens.callerByHash("hash_a")).toEqual(caller);
      expect(await replicas[1].tokens.revoke("tok_a", at(5))).toBe(true);
      const after = await Promise.all(replicas.map((r) => r.tokens.callerByHash("hash_a")));
      expect(after).toEqual([undefined, undefined, undefined]);
      expect(await replicas[2].tokens.revokedAmong(["tok_a", "tok_b", "tok_none"])).toEqual(["tok_a"]);
      expect((await replicas[0].tokens.list()).find((t) => t.id === "tok_a")?.revokedAt).toBe(at(5));
      expect(await replicas[0].tokens.revoke("tok_a", at(6))).toBe(false);
    });

    test("two writers minting tokens in a new space at once share one space and one person, and one of them says it created them", async () => {
      const fresh = await kind.fresh();
      const other = await fresh.another();
      expect(await fresh.store.tokens.isEmpty()).toBe(true);
      const [a, b] = await Promise.all([
        fresh.store.tokens.create({ space: "team", person: "Ada", kind: "person", tokenId: "tok_1", hash: "h1", at: at(0) }),
        other.tokens.create({ space: "team", person: "Ada", kind: "agent", tokenId: "tok_2", hash: "h2", at: at(0) }),
      ]);
      expect(a.caller.spaceId).toBe(b.caller.spaceId);
      expect(a.caller.person).toEqual(b.caller.person);
      expect([a.created, b.created].sort((x, y) => Number(x.space) - Number(y.space))).toEqual([
        { space: false, person: false },
        { space: true, person: true },
      ]);
      expect(await other.tokens.isEmpty()).toBe(false);
      expect((await other.tokens.list()).map((t) => [t.id, t.kind, t.space, t.person, t.revokedAt])).toEqual([
        ["tok_1", "person", "team", "Ada", null],
        ["tok_2", "agent", "team", "Ada", null],
      ]);
    });
  });

  describe("uploads", () => {
    test("an image stored through one writer reads back byte for byte through another, and its ticket is spent once", async () => {
      const fresh = await kind.fresh();
      const other = await fresh.another();
      const caller = await aPerson(fresh.store);
      await fresh.store.uploads.issue({ id: "upl_1", spaceId: caller.spaceId, tokenHash: "up_hash", tokenId: caller.tokenId, contentType: "image/png", maxBytes: 1024, expiresAt: at(30) });
      expect(await other.uploads.ticket(caller.spaceId, "up_hash")).toEqual({ id: "upl_1", tokenId: caller.tokenId, contentType: "image/png", maxBytes: 1024, expiresAt: at(30), storedAt: null, revokedAt: null });
      const bytes = new Uint8Array(256).map((_, i) => i);
      const quota = { tokenId: caller.tokenId, spaceId: caller.spaceId, tokenBytes: 1e6, spaceBytes: 1e6 };
      const spent = await Promise.all([fresh.store.uploads.store("upl_1", bytes, at(2), quota), other.uploads.store("upl_1", bytes.slice().reverse(), at(2), quota)]);
      expect(spent.sort()).toEqual([false, true]);
      const read = await other.uploads.read(caller.spaceId, "upl_1");
      expect(read?.contentType).toBe("image/png");
      expect([bytes, bytes.slice().reverse()].some((b) => Buffer.from(read!.bytes).equals(Buffer.from(b)))).toBe(true);
      expect(await fresh.store.uploads.read("spc_other", "upl_1")).toBeUndefined();
      expect(await other.uploads.storedAmong(caller.spaceId, ["upl_1", "upl_1", "upl_none"])).toEqual(["upl_1"]);
      expect(await other.uploads.storedAmong(caller.spaceId, [])).toEqual([]);
    });

    test("stored image bytes are held to the token's and the space's quota, and images no ask named are swept after their grace", async () => {
      const fresh = await kind.fresh();
      const other = await fresh.another();
      const caller = await aPerson(fresh.store);
      const ticket = (id: string) => ({ id, spaceId: caller.spaceId, tokenHash: `hash_${id}`, tokenId: caller.tokenId, contentType: "image/png", maxBytes: 1024, expiresAt: at(30) });
      for (const id of ["upl_1", "upl_2", "upl_3"]) await fresh.store.uploads.issue(ticket(id));
      const quota = (tokenBytes: number, spaceBytes: number) => ({ tokenId: caller.tokenId, spaceId: caller.spaceId, tokenBytes, spaceBytes });
      expect(await fresh.store.uploads.store("upl_1", new Uint8Array(100), at(1), quota(150, 1000))).toBe(true);
      expect(await other.uploads.store("upl_2", new Uint8Array(100), at(2), quota(150, 1000))).toBe("token");
      expect(await other.uploads.store("upl_2", new Uint8Array(100), at(2), quota(1000, 150))).toBe("space");
      expect(await other.uploads.store("upl_2", new Uint8Array(50), at(2), quota(150, 150))).toBe(true);
      expect(await other.uploads.store("upl_3", new Uint8Array(10), at(3), quota(1000, 1000))).toBe(true);
      await other.uploads.referenced(caller.spaceId, ["upl_1"], at(4));
      // Before 09:00:03: upl_2, stored at 09:00:02 and never named, goes; upl_3 is still in its grace.
      expect(await fresh.store.uploads.sweepOrphans(at(3))).toBe(1);
      expect((await other.uploads.storedAmong(caller.spaceId, ["upl_1", "upl_2", "upl_3"])).sort()).toEqual(["upl_1", "upl_3"]);
    });

    test("a token's unused tickets are counted on every replica, a revoked token's ticket says so, and expired ones are swept", async () => {
      const fresh = await kind.fresh();
      const other = await fresh.another();
      const caller = await aPerson(fresh.store);
      const ticket = (id: string, expiresAt: string) => ({ id, spaceId: caller.spaceId, tokenHash: `hash_${id}`, tokenId: caller.tokenId, contentType: "image/png", maxBytes: 1024, expiresAt });
      await fresh.store.uploads.issue(ticket("upl_a", at(30)));
      await other.uploads.issue(ticket("upl_b", at(30)));
      await other.uploads.issue(ticket("upl_old", at(5)));
      await fresh.store.uploads.store("upl_b", new Uint8Array([1]), at(3), { tokenId: caller.tokenId, spaceId: caller.spaceId, tokenBytes: 1e6, spaceBytes: 1e6 });
      // At 09:00:10: upl_a is unused and good, upl_b is used, upl_old has expired.
      expect(await other.uploads.unusedHeldBy(caller.tokenId, at(10))).toBe(1);
      expect(await fresh.store.uploads.sweepExpired(at(10))).toBe(1);
      expect(await other.uploads.ticket(caller.spaceId, "hash_upl_old")).toBeUndefined();
      await fresh.store.tokens.revoke(caller.tokenId, at(11));
      expect((await other.uploads.ticket(caller.spaceId, "hash_upl_a"))?.revokedAt).toBe(at(11));
      expect(await other.uploads.read(caller.spaceId, "upl_b")).toBeDefined();
    });
  });

  describe("sessions and waiting calls", () => {
    test("a session stored by one replica is served by another, counted per token, and forgotten when idle or revoked", async () => {
      const fresh = await kind.fresh();
      const other = await fresh.another();
      const row = (id: string, tokenHash: string, second: number) => ({ id, tokenHash, initialize: '{"protocolVersion":"2025-11-25"}', createdAt: at(second), lastSeenAt: at(second) });
      await fresh.store.sessions.insert(row("s1", "tA", 1));
      await fresh.store.sessions.insert(row("s2", "tA", 2));
      await fresh.store.sessions.insert(row("s3", "tB", 3));
      expect(await other.sessions.get("s1")).toEqual(row("s1", "tA", 1));
      expect(await other.sessions.countForToken("tA")).toBe(2);
      await other.sessions.touch("s1", at(10));
      expect((await fresh.store.sessions.get("s1"))?.lastSeenAt).toBe(at(10));
      expect((await other.sessions.deleteIdle(at(5))).sort()).toEqual(["s2", "s3"]);
      expect(await fresh.store.sessions.deleteForToken("tA")).toEqual(["s1"]);
      await fresh.store.sessions.insert(row("s4", "tC", 4));
      await other.sessions.delete("s4");
      expect(await fresh.store.sessions.get("s4")).toBeUndefined();
    });

    test("a waiting call recorded by one replica resumes on another from the recorded turn, and is forgotten with its session", async () => {
      const fresh = await kind.fresh();
      const other = await fresh.another();
      const call = (id: string, sessionId: string, requestId: string, second: number) =>
        ({ id, sessionId, requestId, tool: "ask_question", askId: "ask_1", fromTurn: 0, progressToken: null, createdAt: at(second) });
      await fresh.store.calls.insert({ ...call("cal_1", "s1", "7", 1), fromTurn: 2, progressToken: '"progress-1"' });
      await fresh.store.calls.insert(call("cal_2", "s2", '"x"', 2));
      await fresh.store.calls.insert(call("cal_3", "s3", "9", 9));
      expect(await other.calls.get("cal_1")).toEqual({ id: "cal_1", sessionId: "s1", requestId: "7", tool: "ask_question", askId: "ask_1", fromTurn: 2, progressToken: '"progress-1"', createdAt: at(1) });
      await other.calls.deleteForSessions(["s1"]);
      expect(await fresh.store.calls.get("cal_1")).toBeUndefined();
      expect(await other.calls.deleteBefore(at(5))).toBe(1);
      expect(await fresh.store.calls.get("cal_3")).toBeDefined();
    });
  });

  describe("tasks", () => {
    const task = (id: string, spaceId: string, ttlMs: number | null, second: number) => ({
      id,
      spaceId,
      tokenId: null,
      askId: null,
      status: "working",
      statusMessage: null,
      request: '{"method":"tools/call"}',
      result: null,
      ttlMs,
      pollIntervalMs: 1000,
      createdAt: at(second),
      updatedAt: at(second),
    });

    test("a task is read, updated and paged in its space, and forgotten past its time to live", async () => {
      const fresh = await kind.fresh();
      const other = await fresh.another();
      const caller = await aPerson(fresh.store);
      const stranger = await aPerson(fresh.store, "elsewhere", "Bob");
      await fresh.store.tasks.insert(task("tsk_a", caller.spaceId, 60_000, 0));
      await fresh.store.tasks.insert(task("tsk_b", caller.spaceId, null, 0));
      await fresh.store.tasks.insert(task("tsk_c", caller.spaceId, 5_000, 0));
      await fresh.store.tasks.insert(task("tsk_d", stranger.spaceId, 1_000, 0));
      expect(await other.tasks.get(caller.spaceId, "tsk_a", Date.parse(at(30)))).toEqual(task("tsk_a", caller.spaceId, 60_000, 0));
      expect(await other.tasks.get(caller.spaceId, "tsk_c", Date.parse(at(30)))).toBeUndefined();
      expect(await other.tasks.get(stranger.spaceId, "tsk_a", Date.parse(at(30)))).toBeUndefined();
      expect(await other.tasks.update(caller.spaceId, "tsk_a", { status: "completed", result: '{"ok":true}', updatedAt: at(31) })).toMatchObject({ status: "completed", result: '{"ok":true}' });
      expect(await other.tasks.update(stranger.spaceId, "tsk_a", { status: "failed" })).toBeUndefined();
      expect((await fresh.store.tasks.list(caller.spaceId, 1)).map((t) => t.id)).toEqual(["tsk_a", "tsk_b"]);
      expect((await fresh.store.tasks.list(caller.spaceId, 5, "tsk_a")).map((t) => t.id)).toEqual(["tsk_b", "tsk_c"]);
      // At 09:00:30, tsk_c (5 s) and tsk_d (1 s) are past their time; tsk_a (60 s) and tsk_b (none) are not.
      expect(await other.tasks.sweep(Date.parse(at(30)))).toBe(2);
      expect((await fresh.store.tasks.list(caller.spaceId, 5)).map((t) => t.id)).toEqual(["tsk_a", "tsk_b"]);
      expect(await fresh.store.tasks.list(stranger.spaceId, 5)).toEqual([]);
    });
  });

  describe("web push", () => {
    test("replicas starting at once sign with one key pair, whichever stored it first", async () => {
      const fresh = await kind.fresh();
      const other = await fresh.another();
      const [a, b] = await Promise.all([fresh.store.push.keys(async () => ({ publicKey: "pub-a", privateKey: "priv-a" }), at(0)), other.push.keys(async () => ({ publicKey: "pub-b", privateKey: "priv-b" }), at(0))]);
      expect(a).toEqual(b);
      // Once stored, a pair is not made again (making one loads web push).
      let made = 0;
      expect(await other.push.keys(async () => (made++, { publicKey: "pub-c", privateKey: "priv-c" }), at(1))).toEqual(a);
      expect(made).toBe(0);
    });

    test("a device subscribed on one replica is pushed to from another; subscribing again renews it; it is the person's own to change", async () => {
      const fresh = await kind.fresh();
      const other = await fresh.another();
      const ada = await aPerson(fresh.store);
      const bob = await aPerson(fresh.store, "default", "Bob");
      const device = (id: string, endpoint: string, second: number) => ({ id, spaceId: ada.spaceId, personId: ada.person.id, endpoint, p256dh: "key", auth: "auth", name: "Laptop", loudness: '{"quiet":false}', createdAt: at(second), tokenId: null });
      await fresh.store.push.saveDevice(device("dev_1", "https://push.example/1", 1), true, 2);
      await fresh.store.push.saveDevice(device("dev_2", "https://push.example/2", 2), true, 2);
      // A third device is past the cap of two; the same endpoint again is not a new device.
      expect(await fresh.store.push.saveDevice(device("dev_3", "https://push.example/3", 2), true, 2)).toBe("too_many");
      // Another person's subscription to a known endpoint is their own device, never a takeover of ada's.
      const bobs = await other.push.saveDevice({ ...device("dev_bob", "https://push.example/1", 2), spaceId: bob.spaceId, personId: bob.person.id }, true, 2);
      expect(bobs).toMatchObject({ id: "dev_bob", personId: bob.person.id });
      expect(await other.push.forgetDevice("dev_bob")).toBe(true);
      // The same endpoint again: the same device, renamed, its loudness kept unless given.
      const renewed = await other.push.saveDevice({ ...device("dev_new", "https://push.example/1", 3), name: "Work laptop", loudness: '{"quiet":true}' }, false, 2);
      expect(renewed).toMatchObject({ id: "dev_1", name: "Work laptop", loudness: '{"quiet":false}', createdAt: at(1) });
      expect((await other.push.devicesOf(ada.person.id)).map((d) => d.id)).toEqual(["dev_1", "dev_2"]);
      expect((await other.push.devicesInSpace(ada.spaceId)).map((d) => d.id).sort()).toEqual(["dev_1", "dev_2"]);
      expect(await other.push.setLoudness(bob.person.id, "dev_1", '{"quiet":true}')).toBeUndefined();
      expect((await other.push.setLoudness(ada.person.id, "dev_1", '{"quiet":true}'))?.loudness).toBe('{"quiet":true}');
      expect(await other.push.removeDevice(bob.person.id, "dev_2")).toBe(false);
      expect(await other.push.removeDevice(ada.person.id, "dev_2")).toBe(true);
      await fresh.store.push.pushed("dev_1", at(9));
      expect((await other.push.devicesOf(ada.person.id))[0].lastPushAt).toBe(at(9));
      expect((await other.push.listDevices()).map((d) => [d.id, d.person, d.endpoint])).toEqual([["dev_1", "Ada", "https://push.example/1"]]);
      expect(await other.push.forgetDevice("dev_1")).toBe(true);
      expect(await other.push.forgetDevice("dev_1")).toBe(false);
      expect(await fresh.store.push.devicesOf(ada.person.id)).toEqual([]);
    });

    test("revoking a token removes the devices it registered, in the same commit", async () => {
      const fresh = await kind.fresh();
      const other = await fresh.another();
      const phone = await aPerson(fresh.store);
      const laptop = await aPerson(fresh.store);
      const device = (id: string, caller: Caller) => ({ id, spaceId: caller.spaceId, personId: caller.person.id, endpoint: `https://push.example/${id}`, p256dh: "key", auth: "auth", name: id, loudness: "{}", createdAt: at(1), tokenId: caller.tokenId });
      await fresh.store.push.saveDevice(device("dev_phone", phone), true, 20);
      await fresh.store.push.saveDevice(device("dev_laptop", laptop), true, 20);
      expect(await other.tokens.revoke(phone.tokenId, at(2))).toBe(true);
      expect((await fresh.store.push.devicesInSpace(phone.spaceId)).map((d) => d.id)).toEqual(["dev_laptop"]);
      expect((await fresh.store.push.devicesOf(phone.person.id)).map((d) => d.id)).toEqual(["dev_laptop"]);
    });

    test("each turn of an ask is claimed for a push once, whichever replica sees it first", async () => {
      const fresh = await kind.fresh();
      const replicas = [fresh.store, await fresh.another(), await fresh.another()];
      const claims = await Promise.all(replicas.map((r) => r.push.claimNotice("ask_1", 0, at(1))));
      expect(claims.filter(Boolean)).toEqual([true]);
      expect(await replicas[1].push.claimNotice("ask_1", 1, at(2))).toBe(true);
    });
  });

  describe("event tickets and refused tokens", () => {
    test("an event ticket issued on one replica is redeemed once, on another, with the revision it was asked in; an expired one, or a revoked token's, not at all", async () => {
      const fresh = await kind.fresh();
      const other = await fresh.another();
      const caller = await aPerson(fresh.store);
      await fresh.store.tickets.issue("tkt_1", caller.tokenId, "3", at(60));
      await fresh.store.tickets.issue("tkt_2", caller.tokenId, "2", at(10));
      expect(await other.tickets.heldBy(caller.tokenId, at(5))).toBe(2);
      expect(await other.tickets.heldBy(caller.tokenId, at(10))).toBe(1);
      const redeemed = await Promise.all([other.tickets.redeem("tkt_1", at(5)), fresh.store.tickets.redeem("tkt_1", at(5))]);
      expect(redeemed.filter(Boolean)).toEqual([{ caller, revision: "3" }]);
      expect(await other.tickets.redeem("tkt_2", at(11))).toBeUndefined();
      await fresh.store.tickets.issue("tkt_3", caller.tokenId, "2", at(60));
      await fresh.store.tokens.revoke(caller.tokenId, at(12));
      expect(await other.tickets.redeem("tkt_3", at(13))).toBeUndefined();
      await fresh.store.tickets.issue("tkt_4", caller.tokenId, "2", at(10));
      await fresh.store.tickets.issue("tkt_5", caller.tokenId, "2", at(60));
      await other.tickets.sweep(at(20));
      expect(await fresh.store.tickets.heldBy(caller.tokenId, at(0))).toBe(1);
    });

    test("refused tokens counted on two replicas add up, and a new window starts over", async () => {
      const fresh = await kind.fresh();
      const other = await fresh.another();
      const now = Date.parse(at(0));
      const counts = [];
      for (let i = 0; i < 10; i++) counts.push(await fresh.store.failures.add("10.0.0.1", now + i), await other.failures.add("10.0.0.1", now + i));
      expect(counts).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(await fresh.store.failures.count("10.0.0.1", now + 20)).toBe(20);
      expect(await other.failures.count("10.0.0.1", now + 20)).toBe(20);
      expect(await other.failures.count("10.0.0.2", now + 20)).toBe(0);
      // A minute on, the window has passed: nothing counted, and the next refusal counts from one.
      const later = now + 60_001;
      expect(await other.failures.count("10.0.0.1", later)).toBe(0);
      expect(await fresh.store.failures.add("10.0.0.1", later)).toBe(1);
      await other.failures.add("10.0.0.2", now);
      await other.failures.sweep(later + 1);
      expect(await fresh.store.failures.add("10.0.0.2", later + 1)).toBe(1);
    });

    test("refused tokens sent to two replicas at the same instant are all counted", async () => {
      const fresh = await kind.fresh();
      const replicas = [fresh.store, await fresh.another(), await fresh.another()];
      const now = Date.parse(at(0));
      const counts = await Promise.all(Array.from({ length: 30 }, (_, i) => replicas[i % 3].failures.add("10.0.0.9", now)));
      expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    });
  });
});
