// A task-augmented call started on one replica lives in the database: the same session, carried to
// another replica, lists the task, polls it `working` while the person has the move, and gets its
// result once the person answered on a third.
import { describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Replicas, withReplicas } from "../support/replicas.ts";
import { newProject, openedAsk } from "../support/scene.ts";
import { questionInput, toolReply } from "../mcp/mcp-scene.ts";

describe.each([2, 3])("%i replicas on one database", (count) => {
  let r: Replicas;
  let personToken: string;
  let agentToken: string;
  withReplicas(count, (started) => ({ r, personToken, agentToken } = started));

  /** An SDK client on replica `at`, in session `sessionId` when given (no new initialize), else a new one. */
  async function client(at: number, sessionId?: string) {
    const transport = new StreamableHTTPClientTransport(new URL(`${r.urlOf(at)}/mcp`), { sessionId, requestInit: { headers: { Authorization: `Bearer ${agentToken}` } } });
    if (sessionId) transport.setProtocolVersion("2025-11-25");
    const c = new Client({ name: "claude-code", version: "2.1.0" }, { capabilities: { tasks: { list: {}, cancel: {} } } as never });
    await c.connect(transport);
    return { client: c, transport };
  }

  test("a task started on one replica is listed and polled on another, and completes with the reply given on a third", async () => {
    const [started, polled, answered] = [0, 1, 2 % count];
    const first = await client(started);
    const project = newProject();
    const created = await first.client.request({ method: "tools/call", params: { name: "ask_question", arguments: questionInput(project) } }, CreateTaskResultSchema, { task: { ttl: 60 * 60_000 } });
    expect(created.task.status).toBe("working");
    const ask = await openedAsk(r.person(personToken, answered), project);

    const moved = await client(polled, first.transport.sessionId);
    expect((await moved.client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(created.task.taskId);
    expect((await moved.client.experimental.tasks.getTask(created.task.taskId)).status).toBe("working");

    expect((await r.person(personToken, answered).reply(ask.id, { outcome: "answered", selected: ["SQLite"] })).status).toBe(200);
    const result = (await moved.client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema)) as CallToolResult;
    expect(toolReply(result)).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: ["SQLite"] } });
    expect((await first.client.experimental.tasks.getTask(created.task.taskId)).status).toBe("completed");
    await moved.transport.close();
    await first.client.close();
  }, 30_000);
});
