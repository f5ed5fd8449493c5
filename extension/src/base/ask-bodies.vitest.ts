import type { Ask } from "@loopback/shared/generated/types";
import { summarize } from "@loopback/shared/ask-rules/summarize";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RelayClient } from "../relay/relay-client";
import { RelayError } from "../relay/relay-error";
import { aQuestion, aReview, fresh } from "../testing/asks";
import { AskBodies, READ_AHEAD, RETRY_MS, wantedBodies } from "./ask-bodies.svelte";
import { Inbox } from "./inbox.svelte";

const listedBySummary = (asks: Ask[]) => {
  const inbox = new Inbox();
  inbox.reset({ open: asks.map(summarize), recent: [] });
  return inbox;
};

describe("reading bodies", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("wants the open ask, the selection and its neighbours, then the top of the list, each once", () => {
    const asks = Array.from({ length: 10 }, () => fresh(aQuestion()));
    const ids = asks.map((a) => a.id);
    expect(wantedBodies(ids[7]!, ids[5]!, asks, asks)).toEqual([ids[7], ids[5], ids[6], ids[4], ...ids.slice(0, READ_AHEAD)]);
    expect(wantedBodies(null, null, asks, asks)).toEqual(ids.slice(0, READ_AHEAD));
  });

  it("reads only the bodies wanted and not held, into the inbox, a few at a time", async () => {
    const asks = Array.from({ length: 8 }, () => fresh(aReview()));
    const inbox = listedBySummary(asks);
    inbox.upsert(asks[1]!);
    const byId = new Map(asks.map((a) => [a.id, a]));
    const ask = vi.fn(async (id: string) => byId.get(id)!);
    const bodies = new AskBodies(inbox);
    bodies.want({ ask } as unknown as RelayClient, asks.slice(0, 5).map((a) => a.id));
    expect(ask).toHaveBeenCalledTimes(3);
    await vi.runAllTimersAsync();
    expect(ask.mock.calls.map(([id]) => id)).toEqual([0, 2, 3, 4].map((i) => asks[i]!.id));
    expect(asks.map((a) => !!inbox.get(a.id))).toEqual([true, true, true, true, true, false, false, false]);
  });

  it("says why a read failed, and reads again while the ask is still wanted", async () => {
    const [asked] = [fresh(aQuestion())];
    const inbox = listedBySummary([asked]);
    const ask = vi.fn().mockRejectedValueOnce(new RelayError("unreachable", "The relay could not be reached.")).mockResolvedValue(asked);
    const bodies = new AskBodies(inbox);
    bodies.want({ ask } as unknown as RelayClient, [asked.id]);
    await vi.advanceTimersByTimeAsync(0);
    expect(bodies.failures.get(asked.id)).toContain("could not be reached");
    expect(inbox.get(asked.id)).toBeUndefined();
    await vi.advanceTimersByTimeAsync(RETRY_MS);
    expect(ask).toHaveBeenCalledTimes(2);
    expect(inbox.get(asked.id)).toEqual(asked);
    expect(bodies.failures.has(asked.id)).toBe(false);
  });

  it("stops retrying an ask no longer wanted", async () => {
    const asked = fresh(aQuestion());
    const ask = vi.fn().mockRejectedValue(new RelayError("unreachable", "down"));
    const bodies = new AskBodies(listedBySummary([asked]));
    const client = { ask } as unknown as RelayClient;
    bodies.want(client, [asked.id]);
    await vi.advanceTimersByTimeAsync(0);
    bodies.want(client, []);
    await vi.advanceTimersByTimeAsync(RETRY_MS * 3);
    expect(ask).toHaveBeenCalledTimes(1);
  });
});
