// What an agent token may see. The inbox (snapshot, history, one ask, the event socket) is the
// person's: an agent token is refused there with auth.person_required. Through MCP an agent token
// reaches only the asks its own person raised, by any of that person's agents: another person's ask
// in the same space is not found. An MCP task belongs to the token that created it: another token,
// even its own person's other agent, gets "not found" from tasks/get, tasks/result and tasks/cancel,
// and does not see it in tasks/list.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { Agent } from "../support/agent.ts";
import { EventSocket } from "../support/person.ts";
import { newProject, openedAsk, scene, type BareScene } from "../support/scene.ts";
import { expectRefusal, questionInput, toolReply } from "../mcp/mcp-scene.ts";

describe("agent tokens", () => {
  let s: BareScene;
  let ada: Agent;
  let adasOther: Agent;
  let bos: Agent;
  beforeAll(async () => {
    s = await scene({ client: false, env: { LOOPBACK_WAIT_BUDGET_S: "0.05" } });
    ada = await Agent.connect(s.relay.url, s.agentToken);
    adasOther = await Agent.connect(s.relay.url, await s.relay.token("ada", { agent: true }));
    bos = await Agent.connect(s.relay.url, await s.relay.token("bo", { agent: true }));
  }, 60_000);
  afterAll(async () => {
    await Promise.all([ada, adasOther, bos].map((a) => a?.close().catch(() => {})));
    await s.dispose();
  });

  test("are refused by the inbox: snapshot, history, one ask, event tickets and the socket", async () => {
    const project = newProject();
    toolReply(await ada.call("ask_question", questionInput(project)));
    const ask = await openedAsk(s.person, project);
    const asAgent = { token: s.agentToken };
    for (const [method, path] of [
      ["GET", "/snapshot"],
      ["GET", "/asks"],
      ["GET", `/asks/${ask.id}`],
      ["POST", "/events/tickets"],
    ]) {
      const answer = await s.person.api(method, path, asAgent);
      expect([path, answer.status, answer.body.code]).toEqual([path, 401, "auth.person_required"]);
    }
    const refused = await EventSocket.open(s.relay.url, ["loopback.v1"], { Authorization: `Bearer ${s.agentToken}` }).catch((e) => e);
    expect(refused.status).toBe(401);
  });

  test("reach only their own person's asks: another person's agent finds none of ada's", async () => {
    const project = newProject();
    const first = toolReply(await ada.call("ask_question", questionInput(project)));
    const askId = first.askId;
    expectRefusal(await bos.call("wait_for_reply", { askId }), "ask.not_found");
    expectRefusal(await bos.call("get_inbox_link", { askId }), "ask.not_found");
    expectRefusal(await bos.call("answer_follow_up", { askId, answer: "Mine now." }), "ask.not_found");
    // Ada's other agent (a restarted agent with a new token) picks it up, and gets her reply.
    expect(toolReply(await adasOther.call("wait_for_reply", { askId })).pending).toBeDefined();
    expect((await s.person.reply(askId, { outcome: "answered", selected: ["SQLite"] })).status).toBe(200);
    expect(toolReply(await adasOther.call("wait_for_reply", { askId })).reply).toMatchObject({ outcome: "answered" });
  });

  test("a task is its creating token's: another token gets not found from tasks/get, tasks/result and tasks/cancel", async () => {
    const project = newProject();
    const { task } = await ada.client.request(
      { method: "tools/call", params: { name: "ask_question", arguments: questionInput(project) } },
      CreateTaskResultSchema,
      { task: { ttl: 60_000 } },
    );
    for (const other of [adasOther, bos]) {
      await expect(other.client.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/not found/i);
      await expect(other.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toThrow(/not found/i);
      await expect(other.client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/not found/i);
      expect((await other.client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).not.toContain(task.taskId);
    }
    // Still working for its own token, which alone may cancel it.
    expect((await ada.client.experimental.tasks.getTask(task.taskId)).status).toBe("working");
    expect((await ada.client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(task.taskId);
    expect((await ada.client.experimental.tasks.cancelTask(task.taskId)).status).toBe("cancelled");
  });
});
