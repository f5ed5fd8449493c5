import type { Ask } from "@loopback/shared/generated/types";
import { summarize } from "@loopback/shared/ask-rules/summarize";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { fakeBrowser } from "wxt/testing/fake-browser";
import { aQuestion, aReview, fresh, personReplies } from "../testing/asks";
import type { ListedAsk } from "../relay/listed-ask";
import { notificationId } from "./notify";
import { RelayConnection } from "./relay-connection";
import { askKey, indexItem, readAsks, writeSettings, writeStatus, writeToken } from "./storage-items";

const RELAY = "http://relay.test";
const badge = () => fakeBrowser.action.getBadgeText({});
const notified = () => Object.keys((fakeBrowser.notifications as unknown as { getAllCreateOptions(): object }).getAllCreateOptions());
const snapshot = (open: ListedAsk[], recent: ListedAsk[] = []) => ({ type: "snapshot" as const, snapshot: { open, recent } });

describe("the worker's state", () => {
  beforeEach(async () => {
    fakeBrowser.reset();
    await writeSettings({ relayUrl: RELAY, notify: true });
  });

  it("stores each ask under its own key and counts the person's move on the badge", async () => {
    const connection = new RelayConnection();
    const a = fresh(aQuestion());
    const b = personReplies(fresh(aQuestion()), { outcome: "follow_up", question: "Which?" });
    const c = fresh(aReview());
    await connection.apply(snapshot([a, b, c]), RELAY);
    expect([...(await readAsks()).keys()].sort()).toEqual([a.id, b.id, c.id].sort());
    expect(await badge()).toBe("2");
  });

  it("replaces an ask as events arrive and updates the badge on every one", async () => {
    const connection = new RelayConnection();
    const ask = fresh(aQuestion());
    await connection.apply(snapshot([]), RELAY);
    await connection.apply({ type: "ask.opened", ask }, RELAY);
    expect(await badge()).toBe("1");
    await connection.apply({ type: "ask.updated", ask: personReplies(ask, { outcome: "dismissed" }) }, RELAY);
    expect(await badge()).toBe("");
    const stored = (await fakeBrowser.storage.local.get(askKey(ask.id)))[askKey(ask.id)] as Ask;
    expect(stored.status).toBe("closed");
  });

  it("notifies of a new ask, and not when the person turned notifications off", async () => {
    const connection = new RelayConnection();
    await connection.apply(snapshot([]), RELAY);
    const first = fresh(aQuestion());
    await connection.apply({ type: "ask.opened", ask: first }, RELAY);
    expect(notified()).toEqual([notificationId(first)]);
    await writeSettings({ relayUrl: RELAY, notify: false });
    await connection.apply({ type: "ask.opened", ask: fresh(aQuestion()) }, RELAY);
    expect(notified()).toHaveLength(1);
  });

  it("offers a two-option question's choices as its buttons, a review Approve and Open, anything else Open", async () => {
    const connection = new RelayConnection();
    await connection.apply(snapshot([]), RELAY);
    const two = fresh(aQuestion({ options: [{ label: "Ship" }, { label: "Wait" }], multiple: false }));
    const many = fresh(aQuestion({ options: [{ label: "A" }, { label: "B" }, { label: "C" }] }));
    const review = fresh(aReview());
    for (const ask of [two, many, review]) await connection.apply({ type: "ask.opened", ask }, RELAY);
    const options = (fakeBrowser.notifications as unknown as { getAllCreateOptions(): Record<string, { buttons?: { title: string }[] }> }).getAllCreateOptions();
    const titles = (ask: Ask) => options[notificationId(ask)]?.buttons?.map((b) => b.title);
    expect([titles(two), titles(many), titles(review)]).toEqual([["Ship", "Wait"], ["Open"], ["Approve", "Open"]]);
  });

  it("clears the notifications of asks a snapshot shows answered elsewhere", async () => {
    const connection = new RelayConnection();
    await connection.apply(snapshot([]), RELAY);
    const answered = fresh(aQuestion());
    const open = fresh(aQuestion());
    for (const ask of [answered, open]) await connection.apply({ type: "ask.opened", ask }, RELAY);
    await connection.apply(snapshot([open], [personReplies(answered, { outcome: "dismissed" })]), RELAY);
    expect(Object.keys(await fakeBrowser.notifications.getAll())).toEqual([notificationId(open)]);
  });

  it("notifies of asks that arrived while the worker was stopped, found in the next snapshot", async () => {
    const before = fresh(aQuestion());
    await new RelayConnection().apply(snapshot([before]), RELAY);
    expect(notified()).toEqual([]);
    const missed = fresh(aReview());
    // A new worker, as after Chrome stopped the old one: it starts from what storage holds.
    await new RelayConnection().apply(snapshot([before, missed]), RELAY);
    expect(notified()).toEqual([notificationId(missed)]);
    expect(await badge()).toBe("2");
  });

  it("mirrors a snapshot's summaries, keeps a body held at the change listed, and notifies and counts from summaries", async () => {
    const connection = new RelayConnection();
    const held = fresh(aQuestion({ options: [{ label: "Ship" }, { label: "Wait" }], multiple: false }));
    await connection.apply(snapshot([]), RELAY);
    await connection.apply({ type: "ask.opened", ask: held }, RELAY);
    const missed = fresh(aQuestion({ options: [{ label: "Yes" }, { label: "No" }], multiple: false }));
    await connection.apply(snapshot([summarize(held), summarize(missed)]), RELAY);
    const stored = await readAsks();
    expect(stored.get(held.id)).toEqual(held);
    expect(stored.get(missed.id)).toEqual(summarize(missed));
    expect(await badge()).toBe("2");
    // Its choices are in the body, not read: the notification offers Open alone.
    expect(notified()).toEqual([notificationId(held), `ask:${missed.id}:open`]);
    const changed = { ...held, updatedAt: new Date(Date.parse(held.updatedAt) + 1000).toISOString() };
    await connection.apply(snapshot([summarize(changed)]), RELAY);
    expect((await readAsks()).get(held.id)).toEqual(summarize(changed));
  });

  it("forgets asks a snapshot no longer holds", async () => {
    const connection = new RelayConnection();
    const gone = fresh(aQuestion());
    const kept = fresh(aQuestion());
    await connection.apply(snapshot([gone, kept]), RELAY);
    await connection.apply(snapshot([kept]), RELAY);
    expect([...(await readAsks()).keys()]).toEqual([kept.id]);
    expect(await indexItem.getValue()).toMatchObject({ relay: RELAY });
  });

  it("does not ask again with a token the relay refused, until the token changes", async () => {
    const fetch = vi.fn(async () => new Response(null, { status: 401 }));
    // Put back by itself, not with vi.unstubAllGlobals(): that would take the fake `browser` and
    // `chrome` of WXT's setup with it, and the files that run after this one in the same worker need them.
    const realFetch = globalThis.fetch;
    vi.stubGlobal("fetch", fetch);
    await writeToken("lbp_revoked");
    await writeStatus({ stream: { state: "stopped", kind: "unauthorized", reason: "That token is not known here." }, revision: "same", who: null });
    await new RelayConnection().ensure();
    expect(fetch).not.toHaveBeenCalled();
    expect(await badge()).toBe("!");
    vi.stubGlobal("fetch", realFetch);
  });
});
