// A dropped inbox socket and a dropped MCP connection in the middle of a wait: the inbox reconnects
// to a fresh snapshot; the agent comes back (wait_for_reply or its task) and gets the answer.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { Agent, structured } from "../support/agent.ts";
import { Person } from "../support/person.ts";
import { RelayProcess } from "../support/relay-process.ts";

let relay: RelayProcess;
let person: Person;
let agentToken: string;

beforeAll(async () => {
  relay = await new RelayProcess({ env: { LOOPBACK_WAIT_BUDGET_S: "0" } }).start();
  person = new Person(relay.url, await relay.token("drops"));
  agentToken = await relay.token("drops", { agent: true });
});
afterAll(() => relay.dispose());

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(25);
  }
}

test("both ends dropped mid-wait: the inbox's fresh snapshot and the returning agent both get the reply", async () => {
  const agent = await Agent.connect(relay.url, agentToken, "dropper", "1.0");
  const socket = await person.socket();
  await socket.next((f) => f.type === "snapshot");
  const call = agent.call("ask_question", { question: "Still there?", project: "drops" }).catch((e) => e);
  const opened = (await socket.next((f) => f.type === "ask.opened")) as any;
  const askId: string = opened.ask.id;
  await waitUntil(async () => (await person.api("GET", `/asks/${askId}`)).body.waiting === true);

  // Both connections die without a goodbye.
  socket.ws.terminate();
  await agent.close();
  await call;
  await waitUntil(async () => (await person.api("GET", `/asks/${askId}`)).body.waiting === false);

  expect((await person.reply(askId, { outcome: "answered", selected: [], text: "yes" })).status).toBe(200);

  const again = await person.socket();
  const snapshot = (await again.next((f) => f.type === "snapshot")) as any;
  const shown = snapshot.snapshot.recent.find((a: any) => a.id === askId);
  expect(shown.status).toBe("closed");
  expect(shown.thread.at(-1).reply).toEqual({ outcome: "answered", selected: [], text: "yes" });
  again.close();

  const back = await Agent.connect(relay.url, agentToken, "dropper", "1.0");
  expect(structured(await back.call("wait_for_reply", { askId }))).toEqual({ askId, reply: { outcome: "answered", selected: [], text: "yes" } });
  await back.close();
});

test("a task whose session dropped mid-wait completes for a new session once the person replies", async () => {
  const agent = await Agent.connect(relay.url, agentToken, "tasker", "1.0");
  const created = await agent.client.request(
    { method: "tools/call", params: { name: "ask_question", arguments: { question: "Later?", project: "drops-task" }, task: { ttl: 600_000 } } },
    CreateTaskResultSchema,
  );
  await agent.close();
  const ask = (await person.snapshot()).open.find((a) => a.project === "drops-task")!;
  expect((await person.reply(ask.id, { outcome: "dismissed" })).status).toBe(200);

  const back = await Agent.connect(relay.url, agentToken, "tasker", "1.0");
  const result = await back.client.request({ method: "tasks/result", params: { taskId: created.task.taskId } }, CallToolResultSchema);
  expect(result.structuredContent).toEqual({ askId: ask.id, reply: { outcome: "dismissed" } });
  await back.close();
});
