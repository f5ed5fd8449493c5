// A dropped inbox socket and a dropped MCP connection in the middle of a wait: the inbox reconnects
// to a fresh snapshot; the agent comes back (wait_for_reply or its task) and gets the answer.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { Agent, structured } from "../support/agent.ts";
import { askWhen, scene, type BareScene } from "../support/scene.ts";

let s: BareScene;
beforeAll(async () => {
  s = await scene({ env: { LOOPBACK_WAIT_BUDGET_S: "0" }, client: false });
});
afterAll(() => s.dispose());

test("both ends dropped mid-wait: the inbox's fresh snapshot and the returning agent both get the reply", async () => {
  const agent = await Agent.connect(s.relay.url, s.agentToken, "dropper", "1.0");
  const socket = await s.person.socket();
  await socket.next((f) => f.type === "snapshot");
  const call = agent.call("ask_question", { question: "Still there?", project: "drops" }).catch((e) => e);
  const opened = (await socket.next((f) => f.type === "ask.opened")) as any;
  const askId: string = opened.ask.id;
  await askWhen(s.person, askId, (a) => a.waiting === true, "an agent waits on it");

  // Both connections die without a goodbye.
  socket.ws.terminate();
  await agent.close();
  await call;
  await askWhen(s.person, askId, (a) => a.waiting === false, "no agent waits on it");

  expect((await s.person.reply(askId, { outcome: "answered", selected: [], text: "yes" })).status).toBe(200);

  const again = await s.person.socket();
  const snapshot = (await again.next((f) => f.type === "snapshot")) as any;
  const shown = snapshot.snapshot.recent.find((a: any) => a.id === askId);
  expect(shown.status).toBe("closed");
  expect(shown.thread.at(-1).reply).toEqual({ outcome: "answered", selected: [], text: "yes" });
  again.close();

  const back = await Agent.connect(s.relay.url, s.agentToken, "dropper", "1.0");
  expect(structured(await back.call("wait_for_reply", { askId }))).toEqual({ askId, reply: { outcome: "answered", selected: [], text: "yes" } });
  await back.close();
});

test("a task whose session dropped mid-wait completes for a new session once the person replies", async () => {
  const agent = await Agent.connect(s.relay.url, s.agentToken, "tasker", "1.0");
  const created = await agent.client.request(
    { method: "tools/call", params: { name: "ask_question", arguments: { question: "Later?", project: "drops-task" }, task: { ttl: 600_000 } } },
    CreateTaskResultSchema,
  );
  await agent.close();
  const ask = (await s.person.snapshot()).open.find((a) => a.project === "drops-task")!;
  expect((await s.person.reply(ask.id, { outcome: "dismissed" })).status).toBe(200);

  const back = await Agent.connect(s.relay.url, s.agentToken, "tasker", "1.0");
  const result = await back.client.request({ method: "tasks/result", params: { taskId: created.task.taskId } }, CallToolResultSchema);
  expect(result.structuredContent).toEqual({ askId: ask.id, reply: { outcome: "dismissed" } });
  await back.close();
});
