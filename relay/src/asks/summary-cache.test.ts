// The summaries a snapshot starts from: remembered off the way of the change being shown, and
// never missing nor stale for a read that comes before they are made.
import { expect, test } from "bun:test";
import { openAsk } from "@loopback/shared/ask-rules/index";
import type { Ask } from "@loopback/shared/generated/types";
import { afterThisTurn } from "./after-this-turn.ts";
import { SummaryCache } from "./summary-cache.ts";

const question = (id: string, text: string): Ask =>
  openAsk("question", { question: text, project: "summaries" }, { id, at: "2026-12-03T10:00:00.000Z", raisedBy: { id: "psn_ada", name: "ada" } }) as Ask;

/** The ask, counting each read of its question: the summary is made when it is read. */
function counted(ask: Ask): { ask: Ask; reads: () => number } {
  const prompt = ask.prompt as { question: string };
  const text = prompt.question;
  let reads = 0;
  Object.defineProperty(prompt, "question", { get: () => (reads++, text), enumerable: true });
  return { ask, reads: () => reads };
}

test("a summary remembered soon is made after this turn, or at once when read before", async () => {
  const cache = new SummaryCache();
  const a = counted(question("ask_a", "Which store?"));
  cache.rememberSoon(a.ask, 0);
  expect(a.reads()).toBe(0);
  // Read in the same turn: summarized then.
  expect(cache.get("ask_a", 0)?.title).toBe("Which store?");
  const b = counted(question("ask_b", "Which port?"));
  cache.rememberSoon(b.ask, 0);
  expect(b.reads()).toBe(0);
  // Not read: summarized once the turn is over all the same.
  await afterThisTurn();
  expect(b.reads()).toBeGreaterThan(0);
  expect(cache.get("ask_b", 0)?.title).toBe("Which port?");
  expect(cache.get("ask_b", 1)).toBeUndefined();
});

test("a summary still to be made is forgotten with the rest when the cache is cleared", async () => {
  const cache = new SummaryCache();
  cache.rememberSoon(question("ask_c", "Which branch?"), 3);
  cache.clear();
  await afterThisTurn();
  expect(cache.get("ask_c", 3)).toBeUndefined();
});
