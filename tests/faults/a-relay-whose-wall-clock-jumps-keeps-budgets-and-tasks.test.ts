// A real relay whose wall clock is stepped a day forward, then a day back, under libfaketime (Debian's
// `faketime` package; the monotonic clock left alone, as a real step leaves it): a waiting call still
// returns at its budget saying how long it really waited, and a working task is still there.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateTaskResultSchema, GetTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { Agent, structured } from "../support/agent.ts";
import { LIBFAKETIME } from "../support/libfaketime.ts";
import { RelayProcess } from "../support/relay-process.ts";

const dir = mkdtempSync(join(tmpdir(), "loopback-faketime-"));
const offsetFile = join(dir, "offset");
const setWallClock = (offset: string) => writeFileSync(offsetFile, `${offset}\n`);

/**
 * The budget is 2 s; the call says how long it really waited, which is its budget and the read after
 * it (a relay under libfaketime, in a loaded run, has taken over half a second: "3 s"). A step of the
 * wall clock would say a day, or less than nothing.
 */
const BUDGET_S_AND_A_SLOW_READ = 5; // toBeWithin's end is exclusive: 2, 3 or 4 s

let relay: RelayProcess;
let agent: Agent;
beforeAll(async () => {
  if (!existsSync(LIBFAKETIME)) throw new Error(`this test steps the relay's wall clock with libfaketime: apt-get install faketime (${LIBFAKETIME})`);
  setWallClock("+0");
  relay = await new RelayProcess({
    env: {
      LOOPBACK_WAIT_BUDGET_S: "2",
      LD_PRELOAD: LIBFAKETIME,
      FAKETIME_TIMESTAMP_FILE: offsetFile,
      FAKETIME_NO_CACHE: "1",
      FAKETIME_DONT_FAKE_MONOTONIC: "1",
    },
  }).start();
  agent = await Agent.connect(relay.url, await relay.token("ada", { agent: true }), "stepped", "1.0");
}, 30_000);
afterAll(async () => {
  await agent?.close().catch(() => {});
  await relay?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

test("a wall clock stepped a day forward and back changes no wait budget, no pending words, no task's time to live", async () => {
  const created = await agent.client.request(
    { method: "tools/call", params: { name: "ask_question", arguments: { question: "Later?", project: "stepped-task" }, task: { ttl: 3_600_000 } } },
    CreateTaskResultSchema,
  );
  const taskStatus = async () => (await agent.client.request({ method: "tasks/get", params: { taskId: created.task.taskId } }, GetTaskResultSchema)).status;

  const call = agent.call("ask_question", { question: "Still there?", project: "stepped-wait" });
  await Bun.sleep(500);
  setWallClock("+1d");
  const result = structured(await call);
  expect(result.pending.waitedSeconds).toBeWithin(2, BUDGET_S_AND_A_SLOW_READ);
  expect(result.pending.message).toContain(`(waited ${result.pending.waitedSeconds} s)`);
  expect(await taskStatus()).toBe("working");

  setWallClock("-1d");
  expect(await taskStatus()).toBe("working");
  const again = structured(await agent.call("wait_for_reply", { askId: result.askId }));
  expect(again.pending.waitedSeconds).toBeWithin(2, BUDGET_S_AND_A_SLOW_READ);
}, 30_000);
