// A relay alone on its SQLite file hears no other replica, so nothing it shows can be out of order
// with a change made elsewhere: a new ask's frame goes to the inboxes in the turn its insert commits,
// not queued behind reads that cannot exist (a chain of promise jobs, a few tens of µs of the ask's
// way to the person after a pause).
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { AskRecords } from "../../relay/src/storage/store.ts";
import { inProcessScene, type InProcessScene } from "../support/in-process-scene.ts";
import { openedAsk, until } from "../support/scene.ts";

let s: InProcessScene;
beforeAll(async () => {
  s = await inProcessScene();
}, 30_000);
afterAll(() => s.dispose());

test("a relay alone on its SQLite file shows a new ask in the turn its insert commits", async () => {
  const order: string[] = [];
  const records = s.relay.store.asks as AskRecords;
  const insert = records.insert;
  // The store's own records, told when the commit's turn ends: the commit callback is the store's
  // last word in that turn.
  records.insert = (spaceId, ask, fingerprint, call, cap, committed) =>
    insert.call(records, spaceId, ask, fingerprint, call, cap, () => {
      committed?.();
      order.push("the commit's turn ends");
    });
  const stop = s.relay.bus.listen((_spaceId, event) => void (event.type === "ask.opened" && order.push("the inboxes' frame")));
  try {
    const asking = s.agent.call("ask_question", { question: "Which store?", project: "alone" });
    await until(() => order.length === 2, "the ask is stored and shown");
    expect(order).toEqual(["the inboxes' frame", "the commit's turn ends"]);
    const ask = await openedAsk(s.person, "alone");
    await s.person.reply(ask.id, { outcome: "dismissed" });
    await asking;
  } finally {
    stop();
    records.insert = insert;
  }
});
