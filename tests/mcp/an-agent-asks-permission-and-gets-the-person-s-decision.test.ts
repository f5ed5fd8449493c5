// Approvals through the relay's MCP tool, as Claude Code's `--permission-prompt-tool` calls it, and
// through `loopback approve-hook`, as its PermissionRequest hook runs it: the person decides from the
// inbox's API; the agent reads the decision in Claude Code's shape.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ApprovalAsk, PermissionDecision } from "@loopback/shared/generated/types";
import { REVISION } from "@loopback/shared/generated/revision";
import { assertShape } from "../support/contract.ts";
import { freePort, ROOT } from "../support/relay-process.ts";
import { Agent, newProject, openedAsk, Person, readAsk, running, scene, until, type Scene } from "./mcp-scene.ts";

const FIXTURES = join(ROOT, "tests/agents/fixtures");
const HOOK_INPUT = JSON.parse(readFileSync(join(FIXTURES, "claude-code-permission-request-hook-input.json"), "utf8"));
const PROMPT_TOOL_ARGUMENTS = JSON.parse(readFileSync(join(FIXTURES, "claude-code-permission-prompt-tool-arguments.json"), "utf8"));

let s: Scene;
/** The person's inbox, which reads revision 4: older readers are not shown approvals. */
let person: Person;
beforeAll(async () => {
  // A budget of one second: an approval waits past it, since a `pending` is no decision Claude Code reads.
  s = await scene({ LOOPBACK_WAIT_BUDGET_S: "1" });
  person = s.person.reading(REVISION);
});
afterAll(() => s.dispose());

/** Claude Code asking to run `command`, with the arguments its permission prompt tool gets (captured: tests/agents/fixtures/). */
const bash = (project: string, command = "rm -rf build") => ({
  ...PROMPT_TOOL_ARGUMENTS,
  input: { command, description: "Remove the build output" },
  tool_use_id: `toolu_${crypto.randomUUID().slice(0, 8)}`,
  project,
});

/** The decision a call returned: one text block, as Claude Code reads a permission prompt tool's result. */
function decisionOf(result: CallToolResult): PermissionDecision {
  if (result.isError) throw new Error(`tool refused: ${JSON.stringify(result.content)}`);
  expect(result.content).toHaveLength(1);
  expect(result.structuredContent).toBeUndefined();
  const decision = JSON.parse((result.content[0] as { text: string }).text);
  assertShape(REVISION, "PermissionDecision", decision);
  return decision;
}

async function approval(args: Record<string, unknown>) {
  const call = running(s.agent.call("request_approval", args));
  const ask = (await openedAsk(person, args.project as string, call)) as ApprovalAsk;
  return { ask, call };
}

describe("request_approval", () => {
  test("a command the person edited runs as they edited it", async () => {
    const { ask, call } = await approval(bash(newProject()));
    await person.reply(ask.id, { outcome: "allowed", input: { command: "rm -rf build/cache" } });
    expect(decisionOf(await call)).toEqual({ behavior: "allow", updatedInput: { command: "rm -rf build/cache" } });
  });

  test("allowed for the session, the decision carries the session rule for the same command", async () => {
    const { ask, call } = await approval(bash(newProject(), "npm test"));
    await person.reply(ask.id, { outcome: "allowed", scope: "session" });
    expect(decisionOf(await call).updatedPermissions).toEqual([{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "npm test" }], behavior: "allow", destination: "session" }]);
  });

  test("denied, the agent hears the person's words, and is stopped only when they say so", async () => {
    const first = await approval(bash(newProject()));
    await person.reply(first.ask.id, { outcome: "denied", message: "Use make clean." });
    expect(decisionOf(await first.call)).toEqual({ behavior: "deny", message: "Use make clean." });
    const second = await approval(bash(newProject()));
    await person.reply(second.ask.id, { outcome: "denied", stop: true });
    expect(decisionOf(await second.call)).toEqual({ behavior: "deny", message: "The person denied this and stopped you.", interrupt: true });
  });

  test("an edit is shown as the diff it makes; anything else by its input", async () => {
    const project = newProject();
    const edit = await approval({ tool_name: "Edit", input: { file_path: "src/auth.ts", old_string: "ttl = 60", new_string: "ttl = 3600" }, project });
    expect(edit.ask.prompt.touches).toEqual({ type: "edit", file: "src/auth.ts", diff: expect.stringContaining("-ttl = 60\n+ttl = 3600\n") });
    await person.reply(edit.ask.id, { outcome: "denied" });
    await edit.call;
    const other = await approval({ tool_name: "mcp__github__create_issue", input: { title: "Bug" }, project: newProject() });
    expect(other.ask.prompt.touches).toEqual({ type: "other" });
    await person.reply(other.ask.id, { outcome: "allowed" });
    await other.call;
  });

  test("an approval takes only a decision: no answer, verdict or dismissal", async () => {
    const { ask, call } = await approval(bash(newProject()));
    for (const reply of [{ outcome: "answered", selected: [], text: "ok" }, { outcome: "approved" }, { outcome: "dismissed" }]) {
      const res = await person.reply(ask.id, reply);
      expect([res.status, (res.body as unknown as { code: string }).code]).toEqual([422, "reply.wrong_kind"]);
    }
    await person.reply(ask.id, { outcome: "denied" });
    await call;
  });

  test("the tool is listed with the contract's input, no output schema, and is not offered as a task", async () => {
    const { tools } = await s.agent.client.listTools();
    const tool = tools.find((t) => t.name === "request_approval")!;
    expect(tool.inputSchema.required).toEqual(["tool_name", "input"]);
    // Its result is one text block, the decision's JSON: Claude Code takes nothing else from a permission prompt tool.
    expect(tool.outputSchema).toBeUndefined();
    expect((tool as { execution?: unknown }).execution).toBeUndefined();
  });

  test("a reader of revision 3 is not shown approvals at all", async () => {
    const project = newProject();
    const { ask, call } = await approval(bash(project));
    const older = s.person.reading("3");
    const snapshot = (await older.api("GET", "/snapshot")).body as { open: { id: string }[] };
    expect(snapshot.open.map((a) => a.id)).not.toContain(ask.id);
    expect((await older.api("GET", `/asks/${ask.id}`)).status).toBe(404);
    // Nor can it answer one: its reply is refused before anything is stored, and the ask waits on.
    expect((await older.reply(ask.id, { outcome: "dismissed" })).status).toBe(404);
    expect((await readAsk(person, ask.id)).status).toBe("awaiting_human");
    const socket = await older.socket();
    await person.reply(ask.id, { outcome: "denied" });
    await call;
    // A question after the decision: the older socket's next frame is about it, not the approval.
    const q = newProject();
    const asked = running(s.agent.call("ask_question", { question: "Next?", project: q }));
    const frame = await socket.next((f) => f.type !== "snapshot");
    expect(frame.type !== "snapshot" && frame.ask.project).toBe(q);
    const opened = await openedAsk(person, q, asked);
    await person.reply(opened.id, { outcome: "dismissed" });
    await asked;
    socket.close();
  });
});

describe("loopback approve-hook", () => {
  /** Runs the hook as Claude Code does: the request on standard input, the decision on standard output. */
  async function hook(request: Record<string, unknown>, env: Record<string, string>) {
    const proc = Bun.spawn(["bun", join(ROOT, "relay/src/cli.ts"), "approve-hook"], {
      stdin: new TextEncoder().encode(JSON.stringify(request)),
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, ...env },
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { stdout: stdout.trim(), stderr, code };
  }

  /** The JSON the real Claude Code sends a PermissionRequest hook (captured: tests/agents/fixtures/), for this tool use. */
  const request = (cwd: string, tool_name: string, tool_input: Record<string, unknown>) => ({ ...HOOK_INPUT, cwd, tool_name, tool_input });

  test("raises the request in the inbox and prints the person's decision as the hook's output", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "hook-project-"));
    const out = running(hook(request(cwd, "Bash", { command: "git push --force" }), { LOOPBACK_URL: s.relay.url, LOOPBACK_TOKEN: s.agentToken }));
    const project = cwd.split("/").at(-1)!;
    const ask = (await openedAsk(person, project, out)) as ApprovalAsk;
    expect(ask.prompt.touches).toEqual({ type: "command", command: "git push --force", cwd });
    expect(ask.client).toStartWith("loopback-approve-hook");
    await person.reply(ask.id, { outcome: "denied", message: "Never force-push." });
    const { stdout, code } = await out;
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny", message: "Never force-push." } } });
  });

  test("an edit is shown against the file on disk, at the file's own line numbers", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "hook-project-"));
    writeFileSync(join(cwd, "config.ts"), Array.from({ length: 30 }, (_, i) => `export const line${i + 1} = ${i + 1};`).join("\n") + "\n");
    const out = running(
      hook(request(cwd, "Edit", { file_path: join(cwd, "config.ts"), old_string: "export const line20 = 20;", new_string: "export const line20 = 2000;" }), {
        LOOPBACK_URL: s.relay.url,
        LOOPBACK_TOKEN: s.agentToken,
      }),
    );
    const ask = (await openedAsk(person, cwd.split("/").at(-1)!, out)) as ApprovalAsk;
    expect(ask.prompt.touches.type).toBe("edit");
    expect(ask.prompt.touches.type === "edit" && ask.prompt.touches.diff).toContain("@@ -17,7 +17,7 @@");
    await person.reply(ask.id, { outcome: "allowed" });
    expect(JSON.parse((await out).stdout).hookSpecificOutput.decision.behavior).toBe("allow");
  });

  test("with the relay out of reach it prints nothing, so Claude Code asks in its own prompt", async () => {
    const port = await freePort();
    const { stdout, stderr, code } = await hook(request("/tmp", "Bash", { command: "ls" }), { LOOPBACK_URL: `http://127.0.0.1:${port}`, LOOPBACK_TOKEN: s.agentToken });
    expect({ stdout, code }).toEqual({ stdout: "", code: 0 });
    expect(stderr).toContain("could not reach the relay");
  });

  test("with a token the relay refuses it prints nothing, never an allow", async () => {
    const { stdout, code } = await hook(request("/tmp", "Bash", { command: "ls" }), { LOOPBACK_URL: s.relay.url, LOOPBACK_TOKEN: "lba_not-a-token" });
    expect({ stdout, code }).toEqual({ stdout: "", code: 0 });
  });
});

test("an approval waiting when the relay restarts returns the person's decision after it", async () => {
  const { ask, call } = await approval(bash(newProject(), "make deploy"));
  await s.relay.restart();
  await until(async () => (await readAsk(person, ask.id)).waiting, "the call resumed and follows the ask again", 10_000);
  await person.reply(ask.id, { outcome: "allowed" });
  expect(decisionOf(await call)).toEqual({ behavior: "allow", updatedInput: { command: "make deploy", description: "Remove the build output" } });
});

describe("the relay's rules hold for approvals", () => {
  test("an approval raised in another space is not there for this person, nor its decision theirs to give", async () => {
    const zed = await Agent.connect(s.relay.url, await s.relay.token("zed", { space: "elsewhere", agent: true }), "claude-code", "2.1.0");
    const project = newProject();
    const call = running(zed.call("request_approval", bash(project)));
    const theirs = new Person(s.relay.url, await s.relay.token("zed", { space: "elsewhere" })).reading(REVISION);
    const ask = await openedAsk(theirs, project, call);
    expect((await person.snapshot()).open.map((a) => a.id)).not.toContain(ask.id);
    expect((await person.reply(ask.id, { outcome: "allowed" })).status).toBe(404);
    await theirs.reply(ask.id, { outcome: "denied" });
    expect(decisionOf(await call).behavior).toBe("deny");
    await zed.close();
  });

  test("an approval counts among its token's open asks, and past the cap is refused with the cap's Problem", async () => {
    const capped = await scene({ LOOPBACK_MAX_OPEN_ASKS_PER_TOKEN: "1" });
    const inbox = capped.person.reading(REVISION);
    try {
      const project = newProject();
      const first = running(capped.agent.call("request_approval", bash(project)));
      const open = await openedAsk(inbox, project, first);
      const second = await capped.agent.call("request_approval", bash(newProject(), "make clean"));
      expect(second.isError).toBe(true);
      expect((second.content[0] as { text: string }).text).toStartWith("asks.too_many:");
      await inbox.reply(open.id, { outcome: "denied" });
      expect(decisionOf(await first).behavior).toBe("deny");
    } finally {
      await capped.dispose();
    }
  });
});
