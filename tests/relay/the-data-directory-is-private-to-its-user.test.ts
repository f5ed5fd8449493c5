// Every ask, diff and image lives in the data directory: other users of the machine must not read it,
// whatever the umask the relay was started under.
import { afterEach, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RelayProcess } from "../support/relay-process.ts";
import { assertNoInternalErrors } from "../support/scene.ts";

// The relay inherits this umask: the usual one, under which files are readable by everyone.
process.umask(0o022);

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

async function relayIn(dataDir: string) {
  const parent = join(dataDir, "..");
  const relay = await new RelayProcess({ dataDir }).start();
  cleanup.push(async () => {
    await relay.dispose();
    rmSync(parent, { recursive: true, force: true });
    assertNoInternalErrors(relay.log);
  });
  // A write, so the write-ahead log is in use.
  await relay.token("someone");
  return relay;
}

test("a new data directory is 0700 and the database and its journal files 0600, under a umask of 022", async () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), "loopback-perm-")), "data");
  const relay = await relayIn(dataDir);
  expect(mode(dataDir)).toBe("700");
  for (const name of ["loopback.sqlite", "loopback.sqlite-wal", "loopback.sqlite-shm"]) {
    expect(existsSync(join(dataDir, name))).toBe(true);
    expect([name, mode(join(dataDir, name))]).toEqual([name, "600"]);
  }
  expect(relay.log).not.toContain("Warning: the data directory");
});

test("an existing data directory open to others is warned about at start, and the database is made 0600", async () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), "loopback-perm-")), "data");
  mkdirSync(dataDir);
  chmodSync(dataDir, 0o755);
  // An older relay left the database readable by everyone.
  const first = await new RelayProcess({ dataDir }).start();
  await first.stop();
  chmodSync(join(dataDir, "loopback.sqlite"), 0o644);

  const relay = await relayIn(dataDir);
  expect(relay.log).toContain(`Warning: the data directory ${dataDir} is mode 0755`);
  expect(relay.log).toContain(`chmod 700 ${dataDir}`);
  expect(mode(dataDir)).toBe("755");
  for (const name of ["loopback.sqlite", "loopback.sqlite-wal", "loopback.sqlite-shm"]) expect([name, mode(join(dataDir, name))]).toEqual([name, "600"]);
});
