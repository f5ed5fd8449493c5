// A test that restarts a killed relay on the same port, as a supervisor would, waits until the killed
// one is gone (tests/support/process-gone.ts): the restarted relay otherwise finds the port still
// answering and refuses it. Killed, a relay's first thread is a zombie while its others still hold
// the listening port; gone is when every thread has exited.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { portInUse } from "../../relay/src/port-in-use.ts";
import { processGone } from "../support/process-gone.ts";
import { freePort, RELAY_COMMAND } from "../support/relay-process.ts";
import { until } from "../support/scene.ts";

const dataDir = mkdtempSync(join(tmpdir(), "loopback-killed-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test("a relay killed with SIGKILL counts as gone only once its port no longer answers", async () => {
  // Most kills leave the first thread a zombie before the port is let go (11 rounds of 15 here).
  const answeredWhenGone: number[] = [];
  for (let round = 0; round < 5; round++) {
    const port = await freePort();
    const relay = Bun.spawn([...RELAY_COMMAND, "serve"], {
      env: { ...process.env, LOOPBACK_DATA: join(dataDir, String(round)), LOOPBACK_HOST: "127.0.0.1", LOOPBACK_PORT: String(port), LOOPBACK_WEB_BUILD: "off", LOOPBACK_FIRST_PERSON: "first" },
      stdout: "ignore",
      stderr: "ignore",
    });
    await until(() => portInUse("127.0.0.1", port), "the relay listens", 10_000);
    relay.kill("SIGKILL");
    // Looked at as often as it can be: the port is checked the moment the relay counts as gone.
    await until(() => processGone(relay.pid), "the killed relay is gone", 5_000, 0);
    if (await portInUse("127.0.0.1", port)) answeredWhenGone.push(round);
    await relay.exited;
  }
  expect(answeredWhenGone).toEqual([]);
}, 60_000);
