// Approvals with the real Claude Code: its permission prompts, headless through
// `--permission-prompt-tool mcp__loopback__request_approval` and interactive through the
// `PermissionRequest` hook `loopback approve-hook`, answered by the person over the inbox's API. The
// scripted model asks to run a shell command that needs permission; what reaches the model tells
// whether it ran, and as what.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { ApprovalAsk, Ask, AskSummary } from "@loopback/shared/generated/types";
import { REVISION } from "@loopback/shared/generated/revision";
import { BIN } from "../support/agents/agent-process.ts";
import type { AgentRun } from "../support/agents/agent-process.ts";
import type { Person } from "../support/person.ts";
import { ROOT } from "../support/relay-process.ts";
import { agentScene, CLAUDE_CODE, until, type AgentScene } from "./agents-scene.ts";

let s: AgentScene;
/** The person's inbox reads the newest revision, which shows approvals (revision 4 and later). */
let person: Person;
beforeAll(async () => {
  s = await agentScene();
  person = s.person.reading(REVISION);
}, 30_000);
afterAll(() => s.dispose());

const HEADLESS = ["--permission-prompt-tool", "mcp__loopback__request_approval"];

/** A command only this test runs, so its approval is found by it. */
const marker = () => `loopback-${crypto.randomUUID().slice(0, 8)}`;

/** The open approval for `command`, once Claude Code asked for it. */
async function approvalFor(command: string, run: AgentRun): Promise<ApprovalAsk> {
  try {
    return await until(
      async () => {
        // The snapshot lists summaries: an approval's title names its tool and command; its body is read by id.
        const listed = ((await person.snapshot()).open as unknown as AskSummary[]).find((a) => a.kind === "approval" && a.title.includes(command));
        const found = listed && (await person.api<Ask>("GET", `/asks/${listed.id}`)).body;
        if (!found && run.proc.exitCode !== null) throw new Error(`Claude Code ended (${run.proc.exitCode}) without asking`);
        return found as ApprovalAsk | undefined;
      },
      `an approval of ${command}`,
      60_000,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}\nClaude Code printed:\n${run.output().slice(-4000)}`, { cause: e });
  }
}

async function approvalsOf(command: string): Promise<number> {
  // The snapshot lists summaries: an approval's title names its command (its body is read by id).
  const { open, recent } = (await person.snapshot()) as unknown as { open: AskSummary[]; recent: AskSummary[] };
  return [...open, ...recent].filter((a) => a.kind === "approval" && a.title.includes(command)).length;
}

const bash = (command: string) => ({ tool: "Bash", args: { command, description: "Print a marker" } });
/**
 * One command Claude Code asks permission for (it writes a file: a bare `echo` it allows by itself),
 * printing `word`. One, not several joined by `&&`: Claude Code checks each part of a compound
 * command against its rules apart, so a session rule for the whole line would not cover it.
 */
const writes = (word: string) => `node -e "require('fs').writeFileSync('${word}.txt', ''); console.log('${word}')"`;

describe("headless: --permission-prompt-tool", () => {
  test.concurrent("allowed, the command runs and the model gets its output", async () => {
    const m = marker();
    const command = writes(`ran-${m}`);
    const run = await s.launch(CLAUDE_CODE, { script: [bash(command), { text: "Done." }], args: HEADLESS });
    const ask = await approvalFor(command, run);
    expect(ask).toMatchObject({ waiting: true, prompt: { tool: "Bash", touches: { type: "command", command, description: "Print a marker" } } });
    expect(ask.client).toStartWith("claude-code");
    expect((await person.reply(ask.id, { outcome: "allowed" })).status).toBe(200);
    expect((await run.results.next("Bash")).text).toContain(`ran-${m}`);
    expect(await run.exited).toBe(0);
  }, 120_000);

  test.concurrent("allowed as the person edited it, the edited command runs instead", async () => {
    const m = marker();
    const run = await s.launch(CLAUDE_CODE, { script: [bash(writes(`asked-${m}`)), { text: "Done." }], args: HEADLESS });
    const ask = await approvalFor(writes(`asked-${m}`), run);
    await person.reply(ask.id, { outcome: "allowed", input: { command: writes(`edited-${m}`), description: "Print a marker" } });
    const result = (await run.results.next("Bash")).text;
    expect(result).toContain(`edited-${m}`);
    expect(result).not.toContain(`asked-${m}`);
  }, 120_000);

  test.concurrent("denied, the model gets the person's words and nothing runs", async () => {
    const m = marker();
    const run = await s.launch(CLAUDE_CODE, { script: [bash(writes(`ran-${m}`)), { text: "Understood." }], args: HEADLESS });
    const ask = await approvalFor(writes(`ran-${m}`), run);
    await person.reply(ask.id, { outcome: "denied", message: `Not now (${m}).` });
    const result = (await run.results.next("Bash")).text;
    expect(result).toContain(`Not now (${m}).`);
    expect(result).not.toContain(`ran-${m}`);
  }, 120_000);

  test.concurrent("allowed for the session, the same command again does not reach the person", async () => {
    const m = marker();
    const command = writes(`again-${m}`);
    const run = await s.launch(CLAUDE_CODE, { script: [bash(command), bash(command), { text: "Done." }], args: HEADLESS });
    const ask = await approvalFor(command, run);
    await person.reply(ask.id, { outcome: "allowed", scope: "session" });
    expect(await run.exited).toBe(0);
    const ran = run.results.all.filter((r) => r.tool === "Bash");
    expect(ran.map((r) => r.text.includes(`again-${m}`))).toEqual([true, true]);
    expect(await approvalsOf(command)).toBe(1);
  }, 120_000);
});

describe("interactive: the PermissionRequest hook", () => {
  const hookSettings = () => ({
    hooks: {
      PermissionRequest: [{ matcher: "*", hooks: [{ type: "command", command: `${join(BIN, "bun")} ${join(ROOT, "relay/src/cli.ts")} approve-hook`, timeout: 600 }] }],
    },
  });

  test.concurrent("the hook asks the person, and the command runs once they allow it", async () => {
    const m = marker();
    const command = writes(`hooked-${m}`);
    const run = await s.launch(CLAUDE_CODE, {
      script: [bash(command), { text: "Done." }],
      settings: hookSettings(),
      env: { LOOPBACK_URL: s.relay.url, LOOPBACK_TOKEN: s.agentToken },
    });
    const ask = await approvalFor(command, run);
    expect(ask.client).toStartWith("loopback-approve-hook");
    await person.reply(ask.id, { outcome: "allowed" });
    expect((await run.results.next("Bash")).text).toContain(`hooked-${m}`);
  }, 120_000);
});
