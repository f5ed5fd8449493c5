// Retention, on either store: closed asks past LOOPBACK_RETENTION_DAYS go with their threads and the
// images only they showed, by `loopback prune` or by the relay itself when it starts (and daily);
// open asks stay however old, and so do their images. Ages are set by writing old times into the
// store, as the clock would have left them.
import { Database } from "bun:sqlite";
import { join } from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { RelayProcess } from "../support/relay-process.ts";
import { askWhen, newProject, scene, until, type Scene } from "../support/scene.ts";
import { question, review } from "./open-ask.ts";
import { uploadImage } from "./upload-image.ts";

setDefaultTimeout(30_000);

let s: Scene;
beforeAll(async () => {
  s = await scene();
});
afterAll(() => s.dispose());

const LONG_AGO = "2020-01-01T00:00:00.000Z";

/** Writes to the relay's store as another process would (the relay keeps running). */
async function write(relay: RelayProcess, query: string, ...params: string[]): Promise<void> {
  if (relay.databaseUrl) {
    const sql = postgres(relay.databaseUrl, { max: 1, onnotice: () => {} });
    await sql.unsafe(query, params).finally(() => sql.end({ timeout: 1 }));
    return;
  }
  const db = new Database(join(relay.dataDir, "loopback.sqlite"));
  db.exec("PRAGMA busy_timeout = 5000");
  db.query(query).run(...params);
  db.close();
}

async function closedLongAgo(opened: { ask: { id: string } }): Promise<string> {
  expect((await s.person.reply(opened.ask.id, { outcome: "dismissed" })).status).toBe(200);
  await askWhen(s.person, opened.ask.id, (a) => a.status === "closed");
  await write(s.relay, "update asks set closed_at = $1, created_at = $1, updated_at = $1 where id = $2", LONG_AGO, opened.ask.id);
  return opened.ask.id;
}

const askIds = async () => (await s.relay.rows<{ id: string }>("select id from asks")).map((r) => r.id);
const fileStatus = async (uploadId: string) => (await s.person.api("GET", `/files/${uploadId}`)).status;

test("loopback prune removes old closed asks with their threads and images, and keeps open and recent ones", async () => {
  const oldImage = await uploadImage(s.agent);
  const openImage = await uploadImage(s.agent);
  const oldQuestion = await closedLongAgo(await question(s.person, s.agent));
  const oldReview = await closedLongAgo(await review(s.person, s.agent, { content: [{ type: "image", uploadId: oldImage }] }));
  const recent = await question(s.person, s.agent);
  await s.person.reply(recent.ask.id, { outcome: "dismissed" });
  // Open for years: still the person's to answer.
  const open = await review(s.person, s.agent, { content: [{ type: "image", uploadId: openImage }] });
  await write(s.relay, "update asks set created_at = $1, updated_at = $1 where id = $2", LONG_AGO, open.ask.id);
  await write(s.relay, "update uploads set stored_at = $1 where id in ($2, $3)", LONG_AGO, oldImage, openImage);
  await write(s.relay, "insert into push_notices (ask_id, turn, at) values ($1, 1, $2)", "ask_gone_long_ago", LONG_AGO);

  const out = s.relay.cli(["prune"]);
  expect(out.stderr).toBe("");
  expect(out.exitCode).toBe(0);
  expect(out.stdout).toContain("Pruned 2 asks (closed more than 90 days ago), 1 images no remaining ask shows, 1 push notices.");

  const left = await askIds();
  expect(left).not.toContain(oldQuestion);
  expect(left).not.toContain(oldReview);
  expect(left).toContain(recent.ask.id);
  expect(left).toContain(open.ask.id);
  expect(await s.relay.rows("select ask_id from entries where ask_id in ($1, $2)", oldQuestion, oldReview)).toEqual([]);
  expect(await fileStatus(oldImage)).toBe(404);
  expect(await fileStatus(openImage)).toBe(200);
  const history = (await s.person.api("GET", "/asks?limit=100")).body.items.map((a: { id: string }) => a.id);
  expect(history).not.toContain(oldQuestion);
  expect(history).toContain(recent.ask.id);

  // The open ask is whole: the person answers it and the agent's call returns the answer.
  expect((await s.person.reply(open.ask.id, { outcome: "approved" })).status).toBe(200);
  expect((await open.call).isError).toBeFalsy();
});

test("a relay runs retention by itself when it starts, and says so in its log", async () => {
  const project = newProject();
  const old = await closedLongAgo(await question(s.person, s.agent, { project }));
  await s.relay.restart();
  await until(async () => !(await askIds()).includes(old), "the relay pruned the old ask");
  expect((await s.person.api("GET", `/asks/${old}`)).status).toBe(404);
  await until(() => s.relay.log.includes("retention deleted 1 closed asks"), "the relay logs what it pruned");
});

test("LOOPBACK_RETENTION_DAYS=0 keeps every ask", async () => {
  const kept = await closedLongAgo(await question(s.person, s.agent));
  const keepAll = new RelayProcess({ dataDir: s.relay.dataDir, env: { LOOPBACK_RETENTION_DAYS: "0", ...(s.relay.databaseUrl ? { LOOPBACK_DATABASE_URL: s.relay.databaseUrl } : {}) } });
  const out = keepAll.cli(["prune"]);
  expect(out.stdout).toContain("Pruned 0 asks (none: LOOPBACK_RETENTION_DAYS=0 keeps them for ever)");
  expect(await askIds()).toContain(kept);
});
