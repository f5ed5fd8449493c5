import type { Ask, Snapshot } from "@loopback/shared/generated/types";
import { summarize } from "@loopback/shared/ask-rules/summarize";
import { describe, expect, it, vi } from "vitest";
import { aQuestion, aReview, fresh, personReplies } from "../testing/asks";
import { RelayError } from "./relay-error";
import { wholeSnapshot } from "./whole-snapshot";

const listing = (open: Ask[], recent: Ask[], whole: Ask[]): Snapshot => ({ open: open.map(summarize), recent: recent.map(summarize), whole });

describe("a snapshot of summaries made whole", () => {
  it("takes the asks it carries whole, reads the others by id, and keeps the snapshot's order", async () => {
    const [first, second, third] = [fresh(aQuestion()), fresh(aReview()), fresh(aQuestion())];
    const closed = personReplies(fresh(aQuestion()), { outcome: "dismissed" });
    const byId = new Map([second, third, closed].map((a) => [a.id, a]));
    const read = vi.fn(async (id: string) => byId.get(id)!);
    const whole = await wholeSnapshot(listing([first, second, third], [closed], [first]), () => undefined, read);
    expect(whole).toEqual({ open: [first, second, third], recent: [closed] });
    expect(read.mock.calls.map(([id]) => id).sort()).toEqual([second.id, third.id, closed.id].sort());
  });

  it("reads again only what changed since the copy it holds", async () => {
    const [kept, changed] = [fresh(aQuestion()), fresh(aQuestion())];
    const newer = { ...changed, updatedAt: new Date(Date.parse(changed.updatedAt) + 1000).toISOString() };
    const read = vi.fn(async () => newer);
    const whole = await wholeSnapshot(listing([kept, newer], [], []), (id) => (id === kept.id ? kept : id === changed.id ? changed : undefined), read);
    expect(whole.open).toEqual([kept, newer]);
    expect(read).toHaveBeenCalledTimes(1);
  });

  it("leaves out an ask gone meanwhile, and fails on any other refusal so the stream starts over", async () => {
    const [gone, there] = [fresh(aQuestion()), fresh(aQuestion())];
    const notFound = new RelayError("refused", "No such ask.", 404);
    const whole = await wholeSnapshot(listing([gone, there], [], [there]), () => undefined, async () => Promise.reject(notFound));
    expect(whole.open).toEqual([there]);
    const down = new RelayError("unreachable", "The relay is not answering.");
    await expect(wholeSnapshot(listing([gone], [], []), () => undefined, async () => Promise.reject(down))).rejects.toBe(down);
  });
});
