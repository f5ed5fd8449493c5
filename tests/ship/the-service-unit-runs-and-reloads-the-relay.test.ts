// docs/loopback.service, as the README tells a self-hoster to install it: its commands run as systemd
// would run them (no systemd here runs units), from its working directory with its environment, the
// clone's paths put where this checkout is. `ExecStart` starts a relay that answers; `ExecReload`,
// with the relay's pid as $MAINPID, replaces it with a new process on the same port, which never
// closes meanwhile.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { ROOT, freePort } from "../support/relay-process.ts";
import { until } from "../support/scene.ts";

const UNIT = readFileSync(join(ROOT, "docs/loopback.service"), "utf8");
const dataDir = mkdtempSync(join(tmpdir(), "loopback-unit-"));
let relay: Subprocess | undefined;
afterAll(async () => {
  const pid = currentPid();
  if (pid) process.kill(pid, "SIGTERM");
  relay?.kill("SIGTERM");
  await relay?.exited;
  await until(() => !currentPid() || !alive(currentPid()!), "the relay stopped", 10_000).catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
});

/** The values of a [Service] key, in order; the clone's paths in them put where this checkout and its data are. */
function service(key: string): string[] {
  const section = UNIT.slice(UNIT.indexOf("[Service]"), UNIT.indexOf("[Install]"));
  return [...section.matchAll(new RegExp(`^${key}=(.*)$`, "gm"))].map((m) => m[1]!.replaceAll("/opt/loopback", ROOT).replaceAll("/var/lib/loopback", dataDir));
}

function currentPid(): number | undefined {
  try {
    return Number(readFileSync(join(dataDir, "loopback.pid"), "utf8").trim()) || undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test("the unit's ExecStart starts a relay that answers, and its ExecReload replaces it on a port that never closes", async () => {
  expect(service("Type")).toEqual(["notify"]);
  const [start] = service("ExecStart");
  const [cwd] = service("WorkingDirectory");
  const env = Object.fromEntries(service("Environment").map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]));
  expect(env.LOOPBACK_DATA).toBe(dataDir);
  const port = await freePort();
  // This checkout's own environment, without LOOPBACK_* settings a test run may carry: the unit's are the ones that count.
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("LOOPBACK_")));
  relay = Bun.spawn(start!.split(" "), { cwd, env: { ...base, ...env, LOOPBACK_PORT: String(port), LOOPBACK_FIRST_PERSON: "ada" }, stdout: "ignore", stderr: "inherit" });
  const url = `http://127.0.0.1:${port}`;
  const healthy = () => fetch(`${url}/healthz`).then((r) => r.status, () => 0);
  await until(async () => (await healthy()) === 204, "the relay the unit started answers", 20_000);
  const first = currentPid();
  expect(first).toBe(relay.pid);

  // `systemctl reload`: ExecReload with $MAINPID, while a client keeps asking.
  const statuses: number[] = [];
  let asking = true;
  const asker = (async () => {
    while (asking) statuses.push(await healthy());
  })();
  const [reload] = service("ExecReload");
  const reloaded = Bun.spawnSync(["sh", "-c", reload!.replaceAll("$MAINPID", String(first))]);
  expect(reloaded.exitCode).toBe(0);
  await until(() => currentPid() !== first && !alive(first!), "the next process took over and the first one left", 20_000);
  await Bun.sleep(200);
  asking = false;
  await asker;
  expect(statuses.length).toBeGreaterThan(10);
  expect(statuses.filter((s) => s !== 204)).toEqual([]);
  expect(alive(currentPid()!)).toBe(true);
  expect(await healthy()).toBe(204);
}, 60_000);
