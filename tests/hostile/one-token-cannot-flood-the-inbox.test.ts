// One agent token must not be able to make its person's inbox unloadable: open asks are capped per
// token and per space, calls run as tasks count among the token's waiting calls, and event sockets
// are capped per token. Every refusal is the problems table's, through the real relay and the
// official MCP client.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { DEFAULT_MAX_OPEN_ASKS_PER_TOKEN } from "../../relay/src/config.ts";
import { Agent } from "../support/agent.ts";
import { EventSocket } from "../support/person.ts";
import { newProject, scene, until, type BareScene } from "../support/scene.ts";
import { expectRefusal, toolReply } from "../mcp/mcp-scene.ts";

/** A review of about 250 KiB: the most an ask may hold is 256 KiB. */
const bigReview = (project: string, n: number) => ({
  title: `Flood ${n}`,
  project,
  content: [{ type: "markdown", text: `${n} `.padEnd(250 * 1024, "lorem ipsum ") }],
});
/**
 * Three times the cap, from eight connections at once: the cap is met while others race past it, and
 * every one after is refused. More would only repeat the same refusal, each 250 KiB read and hashed.
 */
const FLOOD = 3 * DEFAULT_MAX_OPEN_ASKS_PER_TOKEN;

describe("an agent token that opens asks without end", () => {
  let s: BareScene;
  beforeAll(async () => {
    // Calls return `pending` at once, so every ask stays open and nothing waits on the person.
    s = await scene({ client: false, env: { LOOPBACK_WAIT_BUDGET_S: "0.01" } });
  }, 60_000);
  afterAll(() => s.dispose());

  test(`${FLOOD} asks of 250 KiB from one token: those past the cap are refused with asks.too_many`, async () => {
    const project = newProject();
    const agents = await Promise.all(Array.from({ length: 8 }, () => Agent.connect(s.relay.url, s.agentToken)));
    const outcomes: string[] = [];
    let next = 0;
    await Promise.all(
      agents.map(async (agent) => {
        while (next < FLOOD) {
          const n = next++;
          const result = await agent.call("request_review", bigReview(project, n));
          if (result.isError) {
            expectRefusal(result, "asks.too_many");
            outcomes.push("refused");
          } else outcomes.push(toolReply(result).pending ? "opened" : "other");
        }
      }),
    );
    await Promise.all(agents.map((a) => a.close()));
    expect(outcomes.filter((o) => o === "opened").length).toBe(DEFAULT_MAX_OPEN_ASKS_PER_TOKEN);
    expect(outcomes.filter((o) => o === "refused").length).toBe(FLOOD - DEFAULT_MAX_OPEN_ASKS_PER_TOKEN);
    const open = (await s.person.reading("5").snapshot()).open.filter((a) => a.project === project);
    expect(open.length).toBe(DEFAULT_MAX_OPEN_ASKS_PER_TOKEN);

    // Closing one makes room for one more.
    expect((await s.person.reply(open[0].id, { outcome: "dismissed" })).status).toBe(200);
    const agent = await Agent.connect(s.relay.url, s.agentToken);
    expect(toolReply(await agent.call("request_review", bigReview(project, FLOOD))).pending).toBeDefined();
    expectRefusal(await agent.call("request_review", bigReview(project, FLOOD + 1)), "asks.too_many");
    await agent.close();
  }, 120_000);
});

describe("caps of a few", () => {
  let s: BareScene;
  beforeAll(async () => {
    s = await scene({
      client: false,
      env: {
        LOOPBACK_WAIT_BUDGET_S: "0.01",
        LOOPBACK_MAX_OPEN_ASKS_PER_TOKEN: "2",
        LOOPBACK_MAX_OPEN_ASKS_PER_SPACE: "3",
        LOOPBACK_MAX_SOCKETS_PER_TOKEN: "3",
      },
    });
  }, 60_000);
  afterAll(() => s.dispose());

  const question = (project: string, n: number) => ({ question: `Which one, ${n}?`, options: [{ label: "A" }, { label: "B" }], project });

  test("a space's open asks are capped across its tokens: asks.space_full", async () => {
    const project = newProject();
    const first = await Agent.connect(s.relay.url, s.agentToken);
    const second = await Agent.connect(s.relay.url, await s.relay.token("bo", { agent: true }));
    expect(toolReply(await first.call("ask_question", question(project, 1))).pending).toBeDefined();
    expect(toolReply(await first.call("ask_question", question(project, 2))).pending).toBeDefined();
    expectRefusal(await first.call("ask_question", question(project, 3)), "asks.too_many");
    expect(toolReply(await second.call("ask_question", question(project, 4))).pending).toBeDefined();
    expectRefusal(await second.call("ask_question", question(project, 5)), "asks.space_full");
    for (const ask of (await s.person.snapshot()).open) await s.person.reply(ask.id, { outcome: "dismissed" });
    await Promise.all([first.close(), second.close()]);
  });

  test("a token holds at most its cap of event sockets: one more is refused with sockets.too_many", async () => {
    const open = await Promise.all([1, 2, 3].map(() => s.person.socket()));
    const { body } = await s.person.api("POST", "/events/tickets");
    const refused = await EventSocket.open(s.relay.url, ["loopback.v1", `loopback.ticket.${body.ticket}`]).catch((e) => e);
    expect(refused.status).toBe(429);
    const headers = { Authorization: `Bearer ${s.person.token}` };
    const res = await fetch(`${s.relay.url}/api/v1/events`, { headers: { ...headers, Upgrade: "websocket", Connection: "Upgrade", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Protocol": "loopback.v1" } });
    expect(res.status).toBe(429);
    expect((await res.json()).code).toBe("sockets.too_many");
    open[0].close();
    const another = await until(() => s.person.socket().catch(() => undefined), "a socket closed makes room for another");
    another.close();
    for (const socket of open.slice(1)) socket.close();
  });
});

describe("calls run as tasks", () => {
  let s: BareScene;
  beforeAll(async () => {
    s = await scene({ client: false, env: { LOOPBACK_MAX_WAITING_PER_TOKEN: "3" } });
  }, 60_000);
  afterAll(() => s.dispose());

  test("count among the token's waiting calls: 50 at once with the cap at 3, 3 work and 47 fail with calls.too_many", async () => {
    const agent = await Agent.connect(s.relay.url, s.agentToken);
    const project = newProject();
    const question = (n: number) => ({ question: `Which one, ${n}?`, options: [{ label: "A" }, { label: "B" }], project });
    const tasks = await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        agent.client.request({ method: "tools/call", params: { name: "ask_question", arguments: question(n) } }, CreateTaskResultSchema, { task: { ttl: 60_000 } }),
      ),
    );
    const working = tasks.filter((t) => t.task.status === "working");
    const failed = tasks.filter((t) => t.task.status === "failed");
    expect(working.length).toBe(3);
    expect(failed.length).toBe(47);
    for (const t of failed) expectRefusal((await agent.client.experimental.tasks.getTaskResult(t.task.taskId, CallToolResultSchema)) as CallToolResult, "calls.too_many");
    await agent.close();
  });
});
