// A task's lease on its ask, on a clock the test moves. The lease lives in the relay's memory, not in
// the store: SQLite alone.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { askWhen, newProject, openedAsk, questionInput, readAsk } from "../mcp/mcp-scene.ts";
import { inProcessScene, type InProcessScene } from "../support/in-process-scene.ts";

let s: InProcessScene;
beforeAll(async () => {
  s = await inProcessScene();
});
afterAll(() => s.dispose());

test("an agent that stops polling its task stops waiting on the ask within a few seconds", async () => {
  const project = newProject();
  // A task-augmented call, and no poll after it.
  await s.agent.client.request({ method: "tools/call", params: { name: "ask_question", arguments: questionInput(project) } }, CreateTaskResultSchema, { task: { ttl: 60 * 60_000 } });
  const ask = await openedAsk(s.person, project);
  expect((await readAsk(s.person, ask.id)).waiting).toBe(true);
  // Not at the first missed poll: a poll or two may come late.
  await s.clock.advance(2_000);
  expect((await readAsk(s.person, ask.id)).waiting).toBe(true);
  await s.clock.advance(6_000);
  // Once the clock has moved past the lease, not seconds later on a real one.
  await askWhen(s.person, ask.id, (a) => !a.waiting, "the lease ran out", 2_000);
});
