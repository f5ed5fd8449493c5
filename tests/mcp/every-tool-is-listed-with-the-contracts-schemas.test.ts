import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REVISION } from "@loopback/shared/generated/revision";
import { standalone, type Components } from "../../shared/gen/emit.ts";
import { ROOT } from "../support/relay-process.ts";
import { scene, type Scene } from "./mcp-scene.ts";

// The shapes each tool takes and gives, as the product names them (agents' configs name the tools).
const SHAPES: Record<string, { input: string; output: string; blocking: boolean; task?: false }> = {
  ask_question: { input: "QuestionInput", output: "ToolReply", blocking: true },
  request_review: { input: "ReviewInput", output: "ToolReply", blocking: true },
  send_briefing: { input: "BriefingInput", output: "ToolReply", blocking: true },
  answer_briefing: { input: "BriefingAnswerInput", output: "ToolReply", blocking: true },
  answer_follow_up: { input: "FollowUpInput", output: "ToolReply", blocking: true },
  wait_for_reply: { input: "WaitInput", output: "ToolReply", blocking: true },
  get_upload_ticket: { input: "UploadRequest", output: "UploadTicket", blocking: false },
  get_inbox_link: { input: "InboxRequest", output: "InboxLink", blocking: false },
  // Claude Code's permission prompt: its result is Claude Code's decision, which a task's ToolReply is not.
  request_approval: { input: "ApprovalInput", output: "PermissionDecision", blocking: true, task: false },
};

// MCP serves the newest revision's shapes: a client reads them from tools/list, whatever it was built for.
const frozen: Components = JSON.parse(readFileSync(join(ROOT, `revisions/openapi.${REVISION}.json`), "utf8")).components.schemas;

let s: Scene;
beforeAll(async () => {
  s = await scene();
});
afterAll(() => s.dispose());

test("tools/list serves every tool with the newest frozen revision's input and output schemas, self-contained", async () => {
  const { tools } = await s.agent.client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(SHAPES).sort());
  for (const tool of tools) {
    const shapes = SHAPES[tool.name];
    expect({ tool: tool.name, schema: tool.inputSchema }).toEqual({ tool: tool.name, schema: standalone(frozen, frozen[shapes.input]) as any });
    // The permission prompt's result is the decision's JSON as text alone (Claude Code reads nothing else): no output schema.
    const output = shapes.task === false ? undefined : standalone(frozen, frozen[shapes.output]);
    expect({ tool: tool.name, schema: tool.outputSchema }).toEqual({ tool: tool.name, schema: output as any });
    // Several MCP clients cannot follow references.
    expect(JSON.stringify(tool.inputSchema)).not.toContain("$ref");
  }
});

test("every tool has a title and a description written for the model, and says whether it only reads", async () => {
  const { tools } = await s.agent.client.listTools();
  for (const tool of tools) {
    expect(tool.title?.length ?? 0).toBeGreaterThan(10);
    expect(tool.description!.length).toBeGreaterThan(150);
    expect(tool.annotations).toMatchObject({ readOnlyHint: tool.name === "get_inbox_link", destructiveHint: false, openWorldHint: false });
  }
  const words = Object.fromEntries(tools.map((t) => [t.name, t.description!]));
  for (const name of ["ask_question", "request_review", "send_briefing"]) {
    expect(words[name]).toContain("`project`");
    expect(words[name]).toContain("wait_for_reply");
  }
  expect(words.send_briefing).toContain("answer_briefing");
  expect(words.request_review).toContain("revises");
  expect(words.ask_question).toContain("answer_follow_up");
});

test("blocking tools may run as MCP tasks, but for the permission prompt; the instant ones do not offer it", async () => {
  const { tools } = await s.agent.client.listTools();
  for (const tool of tools) {
    expect({ tool: tool.name, execution: tool.execution }).toEqual({
      tool: tool.name,
      execution: SHAPES[tool.name].blocking && SHAPES[tool.name].task !== false ? { taskSupport: "optional" } : undefined,
    });
  }
  const capabilities = s.agent.client.getServerCapabilities();
  expect(capabilities?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
  expect(s.agent.client.getServerVersion()).toMatchObject({ name: "loopback" });
  expect(s.agent.client.getInstructions()).toContain("wait_for_reply");
});

test("calling a tool that does not exist is refused with the names of those that do", async () => {
  const result = await s.agent.call("test_error_handling", {});
  expect(result.isError).toBe(true);
  const text = (result.content[0] as { text: string }).text;
  expect(text).toContain('"test_error_handling"');
  for (const name of Object.keys(SHAPES)) expect(text).toContain(name);
});

test("the server's instructions ask for `project` on exactly the tools whose input requires it", async () => {
  const { tools } = await s.agent.client.listTools();
  // request_approval takes one from the hook, which knows the working directory; Claude Code's own call has none.
  const taking = tools.filter((t) => (t.inputSchema.required ?? []).includes("project")).map((t) => t.name).sort();
  const instructions = s.agent.client.getInstructions()!;
  const sentence = instructions.split("\n").find((line) => line.includes("`project`"))!;
  expect(sentence).not.toContain("Always pass");
  const named = tools.map((t) => t.name).filter((name) => new RegExp(`\\b${name}\\b`).test(sentence)).sort();
  expect(named).toEqual(taking);
});
