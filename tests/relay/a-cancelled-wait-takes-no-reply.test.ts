// The waiting core, called directly on a real SQLite file: a wait cancelled in the same turn as the
// person's reply arrives takes nothing, so the reply is not recorded as handed to a call whose result
// is thrown away; the next wait gets it.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFromEnv } from "../../relay/src/config.ts";
import { Relay } from "../../relay/src/relay.ts";
import { freshDatabase, TEST_STORE } from "../support/relay-process.ts";
import { until } from "../support/scene.ts";

const dataDir = mkdtempSync(join(tmpdir(), "loopback-waiting-"));
// On the store the suite runs on (see tests/support/relay-process.ts).
const relay = await Relay.open(configFromEnv({ LOOPBACK_DATA: dataDir, ...(TEST_STORE === "postgres" ? { LOOPBACK_DATABASE_URL: await freshDatabase() } : {}) }));
afterAll(async () => {
  await relay.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test("a wait cancelled in the same turn as the reply takes nothing; the next wait gets the reply", async () => {
  const agent = (await relay.gate.createToken({ person: "ada", agent: true })).caller;
  const person = (await relay.gate.createToken({ person: "ada" })).caller;
  const { askId } = await relay.asks.open(agent, { kind: "question", input: { question: "Go?", project: "p" } });
  const cancel = new AbortController();
  const cut = relay.waiting.follow(agent, askId, { from: 0, budgetMs: 0, signal: cancel.signal });
  await until(() => relay.waiting.isFollowed(askId), "the wait follows the ask");
  // The reply and the cancel land together, before the wait runs again.
  const replied = relay.asks.reply(person, askId, { outcome: "answered", selected: [], text: "Yes." });
  cancel.abort(new Error("cancelled"));
  const cutShort = expect(cut).rejects.toThrow("cancelled");
  await replied;
  await cutShort;

  const from = await relay.waiting.from(agent, askId, false);
  expect(from).toBe(0);
  expect(await relay.waiting.follow(agent, askId, { from, budgetMs: 0 })).toEqual({ askId, reply: { outcome: "answered", selected: [], text: "Yes." } });
});
