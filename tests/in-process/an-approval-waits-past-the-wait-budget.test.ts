// An approval is no `pending`: Claude Code reads only a decision from its permission prompt tool, so
// the call waits past the wait budget. On a clock the test moves; the budget is the relay's own
// timer, not the store's: SQLite alone.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ApprovalAsk, PermissionDecision } from "@loopback/shared/generated/types";
import { REVISION } from "@loopback/shared/generated/revision";
import { assertShape } from "../support/contract.ts";
import { inProcessScene, type InProcessScene } from "../support/in-process-scene.ts";
import type { Person } from "../support/person.ts";
import { ROOT } from "../support/relay-process.ts";
import { newProject, openedAsk, readAsk, running, until } from "../support/scene.ts";

const PROMPT_TOOL_ARGUMENTS = JSON.parse(readFileSync(join(ROOT, "tests/agents/fixtures/claude-code-permission-prompt-tool-arguments.json"), "utf8"));
const BUDGET_MS = 1_000;

let s: InProcessScene;
/** The person's inbox, which reads revision 4: older readers are not shown approvals. */
let person: Person;
beforeAll(async () => {
  s = await inProcessScene({ env: { LOOPBACK_WAIT_BUDGET_S: String(BUDGET_MS / 1000) } });
  person = s.person.reading(REVISION);
});
afterAll(() => s.dispose());

test("a command the person allows runs as the agent asked, after waiting past the budget", async () => {
  const project = newProject();
  const call = running(s.agent.call("request_approval", { ...PROMPT_TOOL_ARGUMENTS, input: { command: "rm -rf build", description: "Remove the build output" }, tool_use_id: "toolu_budget01", project }));
  const ask = (await openedAsk(person, project, call)) as ApprovalAsk;
  expect(ask).toMatchObject({
    kind: "approval",
    status: "awaiting_human",
    waiting: true,
    prompt: { tool: "Bash", input: { command: "rm -rf build" }, touches: { type: "command", command: "rm -rf build", description: "Remove the build output" } },
  });
  await until(() => s.relay.waiting.byClient.size > 0, "the approval waits");
  await s.clock.advance(BUDGET_MS + 500);
  expect(call.settled).toBe(false);
  expect((await person.reply(ask.id, { outcome: "allowed" })).status).toBe(200);
  const result = (await call) as CallToolResult;
  // One text block, as Claude Code reads a permission prompt tool's result.
  expect(result.isError).toBeFalsy();
  expect(result.content).toHaveLength(1);
  expect(result.structuredContent).toBeUndefined();
  const decision = JSON.parse((result.content[0] as { text: string }).text) as PermissionDecision;
  assertShape(REVISION, "PermissionDecision", decision);
  expect(decision).toEqual({ behavior: "allow", updatedInput: { command: "rm -rf build", description: "Remove the build output" } });
  expect((await readAsk(person, ask.id)).status).toBe("closed");
});
