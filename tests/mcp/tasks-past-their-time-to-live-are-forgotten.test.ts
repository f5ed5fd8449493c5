// A task lives as long as its time to live, whatever its state; past it, it is gone from the store.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFromEnv } from "../../relay/src/config.ts";
import { McpTaskStore } from "../../relay/src/mcp/task-store.ts";
import { Relay } from "../../relay/src/relay.ts";
import { freshDatabase, TEST_STORE } from "../support/relay-process.ts";
import { TestClock } from "../support/test-clock.ts";

const dataDir = mkdtempSync(join(tmpdir(), "loopback-tasks-"));
// On the store the suite runs on (see tests/support/relay-process.ts), and a clock the test moves.
const clock = new TestClock();
const relay = await Relay.open(configFromEnv({ LOOPBACK_DATA: dataDir, ...(TEST_STORE === "postgres" ? { LOOPBACK_DATABASE_URL: await freshDatabase() } : {}) }), clock);
afterAll(async () => {
  await relay.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test("listing tasks forgets those past their time to live and keeps the rest", async () => {
  const { caller } = await relay.gate.createToken({ person: "ada" });
  const store = new McpTaskStore(relay.waiting, relay.store.tasks, relay.clock, caller, relay.taskLifetimes);
  const refused = { content: [{ type: "text", text: "input.invalid" }], isError: true };
  const brief = await store.open(undefined, "ask_question", 0, { ttl: 1 }, refused);
  const lasting = await store.open(undefined, "ask_question", 0, { ttl: 600_000 }, refused);
  await clock.advance(20);
  const ids = (await store.listTasks()).tasks.map((t) => t.taskId);
  expect(ids).toContain(lasting.taskId);
  expect(ids).not.toContain(brief.taskId);
  expect(await store.getTask(brief.taskId)).toBeNull();
});
