import type { Ask, Snapshot } from "@loopback/shared/generated/types";
import { summarize } from "@loopback/shared/ask-rules/summarize";
import { describe, expect, it } from "vitest";
import { aQuestion, aReview, fresh, personReplies } from "../testing/asks";
import { isWhole } from "./listed-ask";
import { listedSnapshot } from "./listed-snapshot";

const listing = (open: Ask[], recent: Ask[], whole: Ask[]): Snapshot => ({ open: open.map(summarize), recent: recent.map(summarize), whole });

describe("a snapshot of summaries, listed", () => {
  it("lists the asks it carries whole as they are and every other by its summary, in the snapshot's order", () => {
    const [first, second, third] = [fresh(aQuestion()), fresh(aReview()), fresh(aQuestion())];
    const closed = personReplies(fresh(aQuestion()), { outcome: "dismissed" });
    const listed = listedSnapshot(listing([first, second, third], [closed], [first]), () => undefined);
    expect(listed.open.map((a) => a.id)).toEqual([first.id, second.id, third.id]);
    expect(listed.open.map(isWhole)).toEqual([true, false, false]);
    expect(listed.open[0]).toEqual(first);
    expect(listed.open[1]).toEqual(summarize(second));
    expect(listed.recent).toEqual([summarize(closed)]);
  });

  it("keeps a body held at the change the snapshot lists, and drops one older than it", () => {
    const [kept, changed] = [fresh(aQuestion()), fresh(aQuestion())];
    const newer = { ...changed, updatedAt: new Date(Date.parse(changed.updatedAt) + 1000).toISOString() };
    const held = new Map([kept, changed].map((a) => [a.id, a]));
    const listed = listedSnapshot(listing([kept, newer], [], []), (id) => held.get(id));
    expect(listed.open).toEqual([kept, summarize(newer)]);
  });
});
