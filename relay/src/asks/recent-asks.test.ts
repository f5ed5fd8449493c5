// The copies a reply starts from on PostgreSQL are bounded by their size: a few large reviews let
// older copies go rather than hold megabytes each without end.
import { expect, test } from "bun:test";
import type { Ask } from "@loopback/shared/generated/types";
import type { VersionedAsk } from "../storage/store.ts";
import { RecentAsks } from "./recent-asks.ts";

const copy = (id: string, bytes: number, version = 0): VersionedAsk => ({
  spaceId: "spc",
  ask: { id, kind: "question", status: "awaiting_human", thread: [], prompt: { question: "x".repeat(bytes) } } as unknown as Ask,
  delivered: 0,
  deliveredAt: null,
  version,
});

test("copies are held up to their size in bytes, the least recently kept let go first", () => {
  const recent = new RecentAsks(10_000);
  recent.keep(copy("a", 4_000));
  recent.keep(copy("b", 4_000));
  recent.keep(copy("c", 4_000));
  expect([recent.peek("a"), recent.peek("b"), recent.peek("c")].map((held) => held?.ask.id)).toEqual([undefined, "b", "c"]);
  expect(recent.bytes).toBeLessThanOrEqual(10_000);
});

test("a copy larger than the whole bound is not held, and an older version never replaces a newer one", () => {
  const recent = new RecentAsks(10_000);
  recent.keep(copy("big", 20_000));
  expect(recent.peek("big")).toBeUndefined();
  recent.keep(copy("a", 100, 2));
  recent.keep(copy("a", 100, 1));
  expect(recent.peek("a")?.version).toBe(2);
  recent.heard("a", 3);
  expect(recent.peek("a")).toBeUndefined();
});
