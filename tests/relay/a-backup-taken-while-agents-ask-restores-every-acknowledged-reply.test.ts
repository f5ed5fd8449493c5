// `loopback backup` while agents ask and the person replies, then `loopback restore` into a new
// data directory: the restored relay holds every reply the person was answered 200 for before the
// backup began (SQLite's file; PostgreSQL is backed up with pg_dump, as the README says).
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "../support/agent.ts";
import { Person } from "../support/person.ts";
import { RELAY_COMMAND, RelayProcess } from "../support/relay-process.ts";
import { newProject, readAsk, scene, until, type BareScene } from "../support/scene.ts";
import { question } from "./open-ask.ts";

setDefaultTimeout(60_000);

let s: BareScene;
const scratch = mkdtempSync(join(tmpdir(), "loopback-backup-"));
beforeAll(async () => {
  s = await scene({ client: false });
});
afterAll(() => s.dispose());

const AGENTS = 3;

test("a backup taken while agents ask and the person replies restores every reply acknowledged before it", async () => {
  const agents = await Promise.all(Array.from({ length: AGENTS }, () => Agent.connect(s.relay.url, s.agentToken)));
  const acknowledged: { askId: string; at: number }[] = [];
  let backupStarted = Infinity;
  let stop = false;
  const loops = agents.map(async (agent) => {
    while (!stop) {
      const opened = await question(s.person, agent, { project: newProject() });
      const res = await s.person.reply(opened.ask.id, { outcome: "answered", selected: ["A"] });
      expect(res.status).toBe(200);
      acknowledged.push({ askId: opened.ask.id, at: performance.now() });
      await opened.call;
    }
  });
  // Some replies first, then the backup while the loops go on, then some more.
  await until(() => acknowledged.length >= 6, "six replies are acknowledged", 30_000);
  const file = join(scratch, "loopback-backup.sqlite");
  backupStarted = performance.now();
  const backup = Bun.spawn([...RELAY_COMMAND, "backup", file], {
    env: { ...process.env, LOOPBACK_DATA: s.relay.dataDir },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, out, err] = await Promise.all([backup.exited, new Response(backup.stdout).text(), new Response(backup.stderr).text()]);
  const during = acknowledged.filter((a) => a.at > backupStarted).length;
  await until(() => acknowledged.filter((a) => a.at > backupStarted).length >= during + 3, "three more replies are acknowledged after the backup", 30_000);
  stop = true;
  await Promise.all(loops);
  await Promise.all(agents.map((a) => a.close()));
  expect({ code, err }).toEqual({ code: 0, err: "" });
  expect(out).toContain(`to ${file}`);
  expect(statSync(file).mode & 0o777).toBe(0o600);

  const restoredInto = new RelayProcess({ dataDir: mkdtempSync(join(tmpdir(), "loopback-restored-")) });
  const restored = restoredInto.cli(["restore", file]);
  expect({ code: restored.exitCode, err: restored.stderr }).toEqual({ code: 0, err: "" });
  await restoredInto.start();
  try {
    const person = new Person(restoredInto.url, s.person.token);
    const before = acknowledged.filter((a) => a.at < backupStarted);
    expect(before.length).toBeGreaterThanOrEqual(6);
    for (const { askId } of before) {
      const ask = await readAsk(person, askId);
      expect(ask.thread.at(-1)).toMatchObject({ author: "human", reply: { outcome: "answered", selected: ["A"] } });
    }
  } finally {
    await restoredInto.dispose();
  }
});

test("restore keeps the database it replaces, and refuses while a relay answers or a file that is no Loopback database", async () => {
  const file = join(scratch, "second.sqlite");
  expect(s.relay.cli(["backup", file]).exitCode).toBe(0);
  const again = s.relay.cli(["backup", file]);
  expect(again.exitCode).toBe(2);
  expect(again.stderr).toContain("EEXIST");

  const running = s.relay.cli(["restore", file]);
  expect(running.exitCode).toBe(2);
  expect(running.stderr).toContain("stop it first");

  const garbage = join(scratch, "garbage.sqlite");
  writeFileSync(garbage, "not a database at all");
  const target = new RelayProcess({ dataDir: mkdtempSync(join(tmpdir(), "loopback-restored-")) });
  const refused = target.cli(["restore", garbage]);
  expect(refused.exitCode).toBe(2);
  expect(refused.stderr).toContain("is not an SQLite database");

  expect(target.cli(["restore", file]).exitCode).toBe(0);
  const replaced = target.cli(["restore", file]);
  expect(replaced.exitCode).toBe(0);
  expect(replaced.stdout).toMatch(/The database it replaced is kept as .*loopback\.sqlite\.before-restore-/);
  await target.dispose();
});
