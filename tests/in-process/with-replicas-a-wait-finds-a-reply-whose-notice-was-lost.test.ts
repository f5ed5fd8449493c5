// With replicas, a waiting call is woken by the notice another replica's commit sends. A notice can be
// lost without the listener noticing: every wait then reads its ask again once SAFETY_LOOK_MS has
// passed, and finds the reply. In-process on a clock the test moves, on PostgreSQL (replicas share
// it): the reply is written to the store as another replica's commit would be, its notice never heard.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { applyReply } from "@loopback/shared/ask-rules/apply-reply";
import { SAFETY_LOOK_MS } from "../../relay/src/asks/ask-feed.ts";
import { inProcessScene, type InProcessScene } from "../support/in-process-scene.ts";
import { running, until } from "../support/scene.ts";
import { question } from "../relay/open-ask.ts";

let s: InProcessScene;
beforeAll(async () => {
  s = await inProcessScene({ store: "postgres", client: { name: "test-agent", version: "1.0.0" }, env: { LOOPBACK_WAIT_BUDGET_S: "120" } });
}, 30_000);
afterAll(() => s.dispose());

test("a call waiting here takes a reply whose notice was lost once the safety look comes round, not before", async () => {
  const opened = await question(s.person, s.agent);
  const { ask } = opened;
  const call = running(opened.call);
  // Parked: its budget is set, and its first look (before the reply) is over by the next request's end.
  await until(() => s.clock.dueWithin(120_000) > 0, "the call waits");
  await s.person.snapshot();

  const stored = (await s.relay.store.asks.get(ask.id))!;
  // This relay hears no notice of its own commits: written straight to the store, the reply is as
  // another replica's whose notice never arrived.
  const answered = applyReply(stored.ask, { outcome: "answered", selected: ["B"], text: "B, for now." }, undefined, s.clock.now());
  expect(await s.relay.store.asks.append(stored, answered)).not.toBe("not_your_turn");

  await s.clock.advance(SAFETY_LOOK_MS - 1);
  expect(call.settled).toBe(false);
  await s.clock.advance(1);
  await until(() => call.settled, "the call returns");
  expect((await call).structuredContent).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: ["B"], text: "B, for now." } });
});
