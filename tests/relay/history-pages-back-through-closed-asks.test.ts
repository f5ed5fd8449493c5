import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Ask, AskPage } from "@loopback/shared/generated/types";
import { scene, until, type Scene } from "../support/scene.ts";
import { question, type Opened } from "./open-ask.ts";

let s: Scene;
/** Every ask closed so far, in the order it was closed. */
const closed: string[] = [];
const open: Opened[] = [];
beforeAll(async () => {
  s = await scene();
});
afterAll(() => s.dispose());

/** Opens `n` questions at once and closes them one after another. */
async function closeMany(n: number): Promise<void> {
  const projects = Array.from({ length: n }, () => `history-${crypto.randomUUID()}`);
  const calls = projects.map((project) => s.agent.call("ask_question", { question: "Ship it?", project }));
  const byProject = await until(async () => {
    const open = new Map<string, Ask>((await s.person.snapshot()).open.filter((a) => projects.includes(a.project!)).map((a) => [a.project!, a]));
    return open.size === n && open;
  }, `all ${n} asks are open`, 20_000);
  for (const project of projects) {
    const id = byProject.get(project)!.id;
    expect((await s.person.reply(id, { outcome: "answered", selected: [], text: "Yes." })).status).toBe(200);
    closed.push(id);
  }
  await Promise.all(calls);
}

const newestFirst = () => [...closed].reverse();

async function page(query: string): Promise<AskPage> {
  const res = await s.person.api<AskPage>("GET", `/asks${query}`);
  expect(res.status).toBe(200);
  return res.body;
}

test("history pages back through closed asks, newest first, with no gap or repeat", async () => {
  open.push(await question(s.person, s.agent));
  await closeMany(7);
  const pages: AskPage[] = [await page("?limit=3")];
  while (pages.at(-1)!.nextBefore) pages.push(await page(`?limit=3&before=${encodeURIComponent(pages.at(-1)!.nextBefore!)}`));
  expect(pages.map((p) => p.items.length)).toEqual([3, 3, 1]);
  expect(pages.flatMap((p) => p.items.map((a) => a.id))).toEqual(newestFirst());
  expect(pages.flatMap((p) => p.items).every((a) => a.status === "closed")).toBe(true);
  expect(pages[0].nextBefore).toBe(pages[0].items[2].closedAt);

  const exact = await page("?limit=7");
  expect(exact.items.map((a) => a.id)).toEqual(newestFirst());
  expect(exact.nextBefore).toBeUndefined();
  expect((await page("?limit=1")).items.map((a) => a.id)).toEqual([closed.at(-1)!]);
  expect((await page(`?before=${encodeURIComponent(exact.items[6].closedAt!)}`)).items).toEqual([]);
});

test("a limit outside 1 to 100 or a before that is not a date-time is 422 query.invalid", async () => {
  for (const query of ["limit=0", "limit=101", "limit=-1", "limit=1.5", "limit=abc", "limit=", "limit=1e2", "before=yesterday", "before=2026-13-45T00:00:00Z", "before=2026-01-31 12:00:00,5z", "before="]) {
    const res = await s.person.api("GET", `/asks?${query}`);
    expect([query, res.status, res.body.code]).toEqual([query, 422, "query.invalid"]);
  }
  expect((await page("?limit=100")).items).toHaveLength(7);
  expect((await page(`?before=${encodeURIComponent(new Date().toISOString())}&limit=2`)).items).toHaveLength(2);
});

test("before names the same moment however the date-time is written", async () => {
  const all = (await page("?limit=100")).items;
  const olderThan = (ms: number) => all.filter((a) => Date.parse(a.closedAt!) < ms).map((a) => a.id);
  const ids = async (before: string) => (await page(`?limit=100&before=${encodeURIComponent(before)}`)).items.map((a) => a.id);
  const t = Date.parse(all[3].closedAt!);

  expect(await ids(new Date(t + 3_600_000).toISOString().replace("Z", "+01:00"))).toEqual(olderThan(t));
  expect(await ids(new Date(t - 5_400_000).toISOString().replace("Z", "-01:30"))).toEqual(olderThan(t));
  const wholeSecond = Math.floor(t / 1000) * 1000;
  expect(await ids(new Date(wholeSecond).toISOString().replace(".000Z", "Z"))).toEqual(olderThan(wholeSecond));
});

test("the snapshot holds every open ask newest first and the fifty most recently closed", async () => {
  await closeMany(45);
  open.push(await question(s.person, s.agent), await question(s.person, s.agent));
  const snapshot = await s.person.snapshot();
  expect(snapshot.open.map((a) => a.id)).toEqual(open.map((o) => o.ask.id).reverse());
  expect(snapshot.recent.map((a) => a.id)).toEqual(newestFirst().slice(0, 50));

  const first = await page("");
  expect(first.items.map((a) => a.id)).toEqual(newestFirst().slice(0, 20));
  expect(first.nextBefore).toBe(first.items[19].closedAt);
  const all = await page("?limit=100");
  expect(all.items.map((a) => a.id)).toEqual(newestFirst());
  expect(all.nextBefore).toBeUndefined();
});
