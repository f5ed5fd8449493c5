import { afterAll, beforeAll, expect, test } from "bun:test";
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Agent, askWhen, expectRefusal, newProject, openedAsk, questionInput, readAsk, scene, toolReply, type Scene } from "./mcp-scene.ts";

let s: Scene;
beforeAll(async () => {
  s = await scene();
});
afterAll(() => s.dispose());

/** A task-augmented tools/call, as a client sends it: the answer is a task, not the result. */
async function startTask(agent: Agent, name: string, args: Record<string, unknown>) {
  const created = await agent.client.request({ method: "tools/call", params: { name, arguments: args } }, CreateTaskResultSchema, { task: { ttl: 60 * 60_000 } });
  return created.task;
}

const result = (agent: Agent, taskId: string) => agent.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema) as Promise<CallToolResult>;

test("a task-augmented call returns a task at once, which completes with the person's reply", async () => {
  const project = newProject();
  const stream = s.agent.client.experimental.tasks.callToolStream({ name: "ask_question", arguments: questionInput(project) }, CallToolResultSchema, { task: { ttl: 60_000 } });
  const seen: string[] = [];
  let final: CallToolResult | undefined;
  let askId: string | undefined;
  for await (const message of stream) {
    seen.push(message.type === "taskStatus" ? `status:${message.task.status}` : message.type);
    if (message.type === "taskCreated") {
      expect(message.task).toMatchObject({ status: "working", ttl: 60_000, pollInterval: 500 });
      const ask = await openedAsk(s.person, project);
      askId = ask.id;
      // Polling the task follows the ask, as a waiting call does.
      await askWhen(s.person, ask.id, (a) => a.waiting, "the polling agent follows it");
      await s.person.reply(ask.id, { outcome: "answered", selected: ["Redis"], text: "For now." });
    }
    if (message.type === "result") final = message.result as CallToolResult;
    if (message.type === "error") throw message.error;
  }
  expect(seen[0]).toBe("taskCreated");
  expect(seen.at(-2)).toBe("status:completed");
  expect(seen.at(-1)).toBe("result");
  expect(toolReply(final!)).toEqual({ askId: askId!, reply: { outcome: "answered", selected: ["Redis"], text: "For now." } });
  expect((await readAsk(s.person, askId!)).waiting).toBe(false);
});

test("a task stays `working` while the person has the move, and its result reaches the same session after the relay was killed", async () => {
  const project = newProject();
  const task = await startTask(s.agent, "request_review", { title: "Drop the old cache", content: [{ type: "markdown", text: "It is unused." }], project });
  expect(task.status).toBe("working");
  const ask = await openedAsk(s.person, project);
  for (let i = 0; i < 3; i++) {
    expect((await s.agent.client.experimental.tasks.getTask(task.taskId)).status).toBe("working");
    await Bun.sleep(50);
  }
  expect((await readAsk(s.person, ask.id)).waiting).toBe(true);
  const listed = await s.agent.client.experimental.tasks.listTasks();
  expect(listed.tasks.map((t) => t.taskId)).toContain(task.taskId);

  await s.relay.kill9();
  await s.relay.start();
  // The session outlived the process: the same client goes on polling.
  expect((await s.agent.client.experimental.tasks.getTask(task.taskId)).status).toBe("working");
  // And a new session of the same agent sees the task too.
  const other = await Agent.connect(s.relay.url, s.agentToken, "claude-code", "2.1.0");
  expect((await other.client.experimental.tasks.getTask(task.taskId)).status).toBe("working");
  await other.close();

  await s.person.reply(ask.id, { outcome: "approved", note: "Go." });
  // tasks/result waits for the task to finish, then hands over the tool's result.
  expect(toolReply(await result(s.agent, task.taskId))).toEqual({ askId: ask.id, reply: { outcome: "approved", note: "Go." } });
  expect((await s.agent.client.experimental.tasks.getTask(task.taskId)).status).toBe("completed");
  // A finished task keeps its result for another look.
  expect(toolReply(await result(s.agent, task.taskId)).reply).toEqual({ outcome: "approved", note: "Go." });
}, 15_000);

test("tasks/result blocks until the person replies", async () => {
  const project = newProject();
  const task = await startTask(s.agent, "ask_question", questionInput(project));
  const ask = await openedAsk(s.person, project);
  let done = false;
  const pending = result(s.agent, task.taskId).finally(() => (done = true));
  await Bun.sleep(700);
  expect(done).toBe(false);
  await s.person.reply(ask.id, { outcome: "dismissed" });
  expect(toolReply(await pending).reply).toEqual({ outcome: "dismissed" });
});

test("a refused call run as a task fails, and its result is the refusal", async () => {
  const task = await startTask(s.agent, "ask_question", { question: "No project?" });
  expect(task.status).toBe("failed");
  expectRefusal(await result(s.agent, task.taskId), "input.invalid");
  const unknown = await startTask(s.agent, "no_such_tool", {});
  expect(unknown.status).toBe("failed");
  expect((await result(s.agent, unknown.taskId)).isError).toBe(true);
});

test("a cancelled task stops following its ask, and the reply is kept for wait_for_reply", async () => {
  const project = newProject();
  const task = await startTask(s.agent, "ask_question", questionInput(project));
  const ask = await openedAsk(s.person, project);
  await askWhen(s.person, ask.id, (a) => a.waiting, "the task follows it");
  expect((await s.agent.client.experimental.tasks.cancelTask(task.taskId)).status).toBe("cancelled");
  expect((await readAsk(s.person, ask.id)).waiting).toBe(false);
  await s.person.reply(ask.id, { outcome: "answered", selected: ["None"] });
  expect((await s.agent.client.experimental.tasks.getTask(task.taskId)).status).toBe("cancelled");
  expect(toolReply(await s.agent.call("wait_for_reply", { askId: ask.id })).reply).toEqual({ outcome: "answered", selected: ["None"] });
});
