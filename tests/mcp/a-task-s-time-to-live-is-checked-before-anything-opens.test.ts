// A task-augmented call with a time to live that is no whole number of milliseconds is refused with
// a JSON-RPC error before anything is opened: no ask is left open, and nothing of the store (no SQL)
// shows in the error. On either store.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { CreateTaskResultSchema, ErrorCode } from "@modelcontextprotocol/sdk/types.js";
import { newProject, questionInput, scene, type Scene } from "./mcp-scene.ts";

setDefaultTimeout(30_000);

let s: Scene;
beforeAll(async () => {
  s = await scene();
});
afterAll(() => s.dispose());

test("a task's ttl of 1.5, 0, -1 or 1e300 is refused as invalid params, and opens no ask", async () => {
  for (const ttl of [1.5, 0, -1, 1e300]) {
    const project = newProject();
    const refused = await s.agent.client.request({ method: "tools/call", params: { name: "ask_question", arguments: questionInput(project), task: { ttl } } } as never, CreateTaskResultSchema).then(
      () => undefined,
      (e: { code?: number; message?: string }) => e,
    );
    expect([ttl, refused?.code]).toEqual([ttl, ErrorCode.InvalidParams]);
    expect(refused?.message).toContain("task.ttl");
    expect(refused?.message).not.toMatch(/insert|select|\$1|params:/i);
    expect((await s.person.snapshot()).open.some((a) => a.project === project)).toBe(false);
  }
  // A whole number is taken.
  const created = await s.agent.client.request({ method: "tools/call", params: { name: "ask_question", arguments: questionInput(newProject()) } }, CreateTaskResultSchema, { task: { ttl: 60_000 } });
  expect(created.task.ttl).toBe(60_000);
});
