// SQLite on a filesystem that fills up: every write (a reply, an agent's new ask) is refused with a Problem (nothing is
// acknowledged that is not on disk), the log names the full disk once and says what to do, `/readyz`
// tells a monitor, and once space is freed the relay writes again by itself. Runs as root: it mounts a
// small tmpfs as LOOPBACK_DATA. SQLite only: on PostgreSQL the data directory holds no database.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { closeSync, mkdtempSync, openSync, rmdirSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, structured } from "../support/agent.ts";
import { Person } from "../support/person.ts";
import { RelayProcess } from "../support/relay-process.ts";
import { newProject, openedAsk } from "../support/scene.ts";

let mountPoint: string;
let relay: RelayProcess;
let person: Person;
let agent: Agent;
const filler = () => join(mountPoint, "filler");

beforeAll(async () => {
  mountPoint = mkdtempSync(join(tmpdir(), "loopback-full-"));
  const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mountPoint], { stderr: "pipe" });
  if (mounted.exitCode !== 0) throw new Error(`this suite mounts a tmpfs and must run as root: ${mounted.stderr.toString()}`);
  relay = await new RelayProcess({ dataDir: join(mountPoint, "data") }).start();
  person = new Person(relay.url, await relay.token("ada"));
  agent = await Agent.connect(relay.url, await relay.token("ada", { agent: true }), "filler", "1.0");
}, 30_000);

afterAll(async () => {
  await agent?.close().catch(() => {});
  await relay?.dispose();
  Bun.spawnSync(["umount", mountPoint]);
  rmdirSync(mountPoint);
}, 30_000);

/** Writes zeros into the data directory until the filesystem refuses another byte. */
function fillTheDisk(): void {
  const fd = openSync(filler(), "w");
  const chunk = new Uint8Array(64 * 1024);
  try {
    for (let size = chunk.length; size >= 1; ) {
      try {
        writeSync(fd, chunk, 0, size);
      } catch (e) {
        if ((e as { code?: string }).code !== "ENOSPC") throw e;
        size = Math.floor(size / 2);
      }
    }
  } finally {
    closeSync(fd);
  }
}

const ready = () => fetch(`${relay.url}/readyz`);

test("a full disk refuses replies with a Problem, logs the full disk once, shows on /readyz, and writes again once freed", async () => {
  const project = newProject();
  const call = agent.call("ask_question", { question: "Room left?", project });
  const ask = await openedAsk(person, project);
  expect((await ready()).status).toBe(204);

  fillTheDisk();
  for (const text of ["first", "second", "third"]) {
    const refused = await person.reply(ask.id, { outcome: "answered", selected: [], text });
    expect(refused.status).toBe(503);
    expect((refused.body as unknown as { code: string }).code).toBe("storage.full");
    expect(JSON.stringify(refused.body)).not.toContain(" at ");
  }
  const readiness = await ready();
  expect(readiness.status).toBe(503);
  expect((await readiness.json()).code).toBe("storage.full");
  // `/healthz` stays storage-free: a load balancer keeps the relay, which still serves every read.
  expect((await fetch(`${relay.url}/healthz`)).status).toBe(204);
  expect((await person.snapshot()).open.map((a) => a.id)).toContain(ask.id);

  const log = relay.log;
  expect(log).not.toContain("cannot rollback");
  expect(log).not.toContain("internal error");
  expect(log.match(/database or disk is full/g)?.length).toBe(1);
  expect(log).toContain("LOOPBACK_DATA");
  expect(log).toContain(relay.dataDir);

  unlinkSync(filler());
  expect((await ready()).status).toBe(204);
  const taken = await person.reply(ask.id, { outcome: "answered", selected: [], text: "room again" });
  expect(taken.status).toBe(200);
  // The agent waited through it all and gets the reply that was taken, not one of the refused ones.
  expect(structured(await call)).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: [], text: "room again" } });
  expect(relay.log).toContain("writes again");
}, 30_000);

test("a full disk refuses an agent's new ask with storage.full, stores nothing of it, and opens it once freed", async () => {
  const project = newProject();
  const before = (await person.snapshot()).open.map((a) => a.id);
  fillTheDisk();
  try {
    const refused = await agent.call("ask_question", { question: "Room for me?", project });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("storage.full");
    // Nothing of it was stored: the inbox lists what it listed before, and no ask of its project.
    expect((await person.snapshot()).open.map((a) => a.id)).toEqual(before);
  } finally {
    unlinkSync(filler());
  }
  const call = agent.call("ask_question", { question: "Room for me?", project });
  const ask = await openedAsk(person, project);
  expect((await person.reply(ask.id, { outcome: "answered", selected: [], text: "yes" })).status).toBe(200);
  expect(structured(await call)).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: [], text: "yes" } });
}, 30_000);
