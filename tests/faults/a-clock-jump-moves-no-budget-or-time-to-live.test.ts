// The wall clock set a day forward or back while the relay runs (NTP stepping, a VM resumed, an
// operator): waits keep their budgets and their `pending` words, tasks keep their time to live. The
// relay's wall time is `Date.now()`, which the test moves; the monotonic clock it must measure with
// (`performance.now()`) moves on as a real clock jump leaves it.
import { afterAll, afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFromEnv } from "../../relay/src/config.ts";
import { McpTaskStore } from "../../relay/src/mcp/task-store.ts";
import { TaskLifetimes } from "../../relay/src/mcp/task-lifetimes.ts";
import { Relay } from "../../relay/src/relay.ts";
import { freshDatabase, TEST_STORE } from "../support/relay-process.ts";

const DAY_MS = 24 * 60 * 60_000;
const realNow = Date.now;
const setWallClock = (offsetMs: number) => (Date.now = () => realNow() + offsetMs);

const dataDir = mkdtempSync(join(tmpdir(), "loopback-clock-"));
// On the store the suite runs on (see tests/support/relay-process.ts).
const relay = await Relay.open(configFromEnv({ LOOPBACK_DATA: dataDir, ...(TEST_STORE === "postgres" ? { LOOPBACK_DATABASE_URL: await freshDatabase() } : {}) }));
const agent = (await relay.gate.createToken({ person: "ada", agent: true })).caller;
afterEach(() => {
  Date.now = realNow;
});
afterAll(async () => {
  Date.now = realNow;
  await relay.close();
  rmSync(dataDir, { recursive: true, force: true });
});

let asks = 0;
const openAsk = async () => (await relay.asks.open(agent, { kind: "question", input: { question: "Still there?", project: `clock-${++asks}` } })).askId;

/** `promise`, or a failure saying what did not happen within a few seconds. */
const within = <T>(promise: Promise<T>, what: string): Promise<T> =>
  Promise.race([promise, Bun.sleep(5_000).then(() => Promise.reject(new Error(`${what} did not happen within 5 s`)))]);

for (const [direction, offset] of [["forward", DAY_MS], ["back", -DAY_MS]] as const) {
  test(`a wall clock set a day ${direction} mid-wait changes neither the wait's budget nor its pending words`, async () => {
    const askId = await openAsk();
    const progress: number[] = [];
    const wait = relay.waiting.follow(agent, askId, { from: 0, budgetMs: 600, onProgress: (ms) => progress.push(ms), progressEveryMs: 100 });
    await Bun.sleep(150);
    setWallClock(offset);
    const result = await within(wait, "the wait's end at its 0.6 s budget");
    // The budget's 0.6 s, said in whole seconds: a second, or a few on a loaded machine whose timers
    // run late, never the day the wall clock moved.
    const { waitedSeconds, message } = (result as { pending: { waitedSeconds: number; message: string } }).pending;
    expect(result).toMatchObject({ askId, pending: { waitedSeconds: expect.any(Number) } });
    expect(waitedSeconds).toBeGreaterThanOrEqual(1);
    expect(waitedSeconds).toBeLessThan(5);
    expect(message).toContain(`(waited ${waitedSeconds} s)`);
    // Every progress beat says how long the call has waited, a fraction of a second each (a few on a
    // loaded machine), never a day.
    expect(progress.length).toBeGreaterThan(0);
    for (const ms of progress) {
      expect(ms).toBeGreaterThan(0);
      expect(ms).toBeLessThan(5_000);
    }
  });
}

test("a wall clock set a day forward or back moves no task's time to live", async () => {
  const tasks = new McpTaskStore(relay.waiting, relay.store.tasks, relay.clock, agent, relay.taskLifetimes);
  const working = await tasks.open(await openAsk(), "ask_question", 0, { ttl: 60 * 60_000 });
  const refused = { content: [{ type: "text", text: "input.invalid" }], isError: true };
  const brief = await tasks.open(undefined, "ask_question", 0, { ttl: 400 }, refused);
  const listed = async () => (await tasks.listTasks()).tasks.map((t) => t.taskId);

  setWallClock(DAY_MS);
  expect((await tasks.getTask(working.taskId))?.status).toBe("working");
  expect(await tasks.getTask(brief.taskId)).not.toBeNull();
  expect(await listed()).toEqual(expect.arrayContaining([working.taskId, brief.taskId]));
  // A relay that had not seen the task before (another replica, or this one restarted) keeps it too.
  const elsewhere = new McpTaskStore(relay.waiting, relay.store.tasks, relay.clock, agent, new TaskLifetimes(relay.clock));
  expect((await elsewhere.getTask(working.taskId))?.status).toBe("working");

  setWallClock(-DAY_MS);
  await Bun.sleep(450);
  // The brief task's 0.4 s are over, though the wall clock now says it was created a day from now.
  expect(await tasks.getTask(brief.taskId)).toBeNull();
  expect(await listed()).not.toContain(brief.taskId);
  expect((await tasks.getTask(working.taskId))?.status).toBe("working");
});
