// A waiting call's progress beat, on a clock the test moves. The beat is the relay's own timer, not
// the store's: SQLite alone.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { newProject, openedAsk, questionInput, running, toolReply, until } from "../mcp/mcp-scene.ts";
import { inProcessScene, type InProcessScene } from "../support/in-process-scene.ts";

const PROGRESS_EVERY_MS = 200;
let s: InProcessScene;
beforeAll(async () => {
  s = await inProcessScene({ env: { LOOPBACK_PROGRESS_EVERY_S: String(PROGRESS_EVERY_MS / 1000) } });
});
afterAll(() => s.dispose());

test("a waiting call sends progress at a steady interval, each telling how long it has waited", async () => {
  const seen: { at: number; progress: number; message?: string }[] = [];
  const project = newProject();
  const call = running(s.agent.call("ask_question", questionInput(project), { onprogress: (p) => seen.push({ at: s.clock.monoMs(), ...p }) }));
  const ask = await openedAsk(s.person, project, call);
  await until(() => s.relay.waiting.byClient.size > 0, "the call waits");
  // The clock moves one beat at a time; each beat reaches the agent before the next.
  for (let beat = 1; beat <= 6; beat++) {
    await s.clock.advance(PROGRESS_EVERY_MS);
    await until(() => seen.length >= beat, `progress ${beat} arrives`);
  }
  await s.person.reply(ask.id, { outcome: "answered", selected: ["SQLite"] });
  expect(toolReply(await call).reply?.outcome).toBe("answered");

  expect(seen).toHaveLength(6);
  for (let i = 1; i < seen.length; i++) {
    // MCP requires progress to grow with every notification.
    expect(seen[i].progress).toBeGreaterThan(seen[i - 1].progress);
    expect(seen[i].progress - seen[i - 1].progress).toBeCloseTo(0.2, 1);
    const gap = seen[i].at - seen[i - 1].at;
    expect(gap).toBeGreaterThan(100);
    expect(gap).toBeLessThan(400);
  }
  expect(seen[0].progress).toBeCloseTo(0.2, 1);
  expect(seen.every((p) => p.message === "Waiting for the person's reply")).toBe(true);
});
