// What the real-agent tests share: a relay with the person "ada" answering over REST, and each of
// the three agents people run, launched against it with a scripted model.
import type { Ask } from "@loopback/shared/generated/types";
import { claudeCode } from "../support/agents/claude-code.ts";
import { codex } from "../support/agents/codex.ts";
import { geminiCli } from "../support/agents/gemini-cli.ts";
import type { AgentRun } from "../support/agents/agent-process.ts";
import type { ModelTurn } from "../support/agents/model-script.ts";
import { Person } from "../support/person.ts";
import { RelayProcess } from "../support/relay-process.ts";
import { assertNoInternalErrors, newProject, until } from "../support/scene.ts";

export { askIdIn, lastResultOf } from "../support/agents/model-script.ts";
export { askWhen, newProject, readAsk, until } from "../support/scene.ts";

export interface LaunchOptions {
  script: ModelTurn[];
  env?: Record<string, string>;
  /** Claude Code's extra arguments (such as `--permission-prompt-tool`). */
  args?: string[];
  /** Claude Code's user settings (`settings.json`), such as hooks. */
  settings?: Record<string, unknown>;
}

export interface Client {
  /** The product's name, for test titles. */
  name: string;
  /** The `clientInfo.name` it sends in `initialize`. */
  clientInfo: string;
  launch(relay: RelayProcess, token: string, opts: LaunchOptions): Promise<AgentRun>;
}

export const CLAUDE_CODE: Client = {
  name: "Claude Code",
  clientInfo: "claude-code",
  launch: (relay, token, opts) => claudeCode({ relayUrl: relay.url, token, ...opts }),
};
export const CODEX: Client = {
  name: "Codex",
  clientInfo: "codex-mcp-client",
  launch: (relay, token, opts) => codex({ relayUrl: relay.url, token, ...opts }),
};
export const GEMINI_CLI: Client = {
  name: "Gemini CLI",
  clientInfo: "gemini-cli-mcp-client",
  launch: (relay, token, opts) => geminiCli({ relayUrl: relay.url, token, ...opts }),
};
export const CLIENTS = [CLAUDE_CODE, CODEX, GEMINI_CLI];

export interface AgentScene {
  relay: RelayProcess;
  person: Person;
  agentToken: string;
  /** Launches a client; the scene kills it when disposed. */
  launch(client: Client, opts: LaunchOptions): Promise<AgentRun>;
  dispose(): Promise<void>;
}

export async function agentScene(env: Record<string, string> = {}): Promise<AgentScene> {
  const relay = await new RelayProcess({ env, firstPerson: "ada" }).start();
  const person = new Person(relay.url, await relay.token("ada"));
  const agentToken = await relay.token("ada", { agent: true });
  const runs: AgentRun[] = [];
  return {
    relay,
    person,
    agentToken,
    async launch(client, opts) {
      const run = await client.launch(relay, agentToken, opts);
      runs.push(run);
      return run;
    },
    async dispose() {
      await Promise.all(runs.map((r) => r.kill()));
      const log = relay.log;
      await relay.dispose();
      assertNoInternalErrors(log);
    },
  };
}

/** A question the scripted model asks, in a project of its own to find the ask by. */
export function question(project = newProject()) {
  return { project, args: { question: "Which database should the cache use?", options: [{ label: "SQLite" }, { label: "Redis" }, { label: "None" }], project } };
}

/**
 * The open ask of `project`, once the agent's call opened it. Agents take seconds to start on a
 * busy machine; the agent's output is in the error when it never gets there or ends first.
 */
export async function askOpened(person: Person, project: string, run: AgentRun, timeoutMs = 60_000): Promise<Ask> {
  try {
    return await until(
      async () => {
        // A reader of revision 5 lists summaries: the ask is read whole by its id.
        const listed = (await person.snapshot()).open.find((a) => a.project === project);
        const ask = listed && (await person.api<Ask>("GET", `/asks/${listed.id}`)).body;
        if (!ask && run.proc.exitCode !== null) throw new Error(`the agent ended (${run.proc.exitCode}) without opening an ask of ${project}`);
        return ask;
      },
      `an ask of ${project} is open`,
      timeoutMs,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}\nthe agent printed:\n${run.output().slice(-4000)}`, { cause: e });
  }
}

/** How many MCP sessions a client opened on the relay: each `initialize` makes one. */
export async function sessionsOf(relay: RelayProcess, client: Client): Promise<number> {
  const rows = await relay.rows<{ initialize: string }>("select initialize from mcp_sessions");
  return rows.filter((r) => JSON.parse(r.initialize).clientInfo?.name === client.clientInfo).length;
}

/** A result text carries the person's choice. */
export const carries = (choice: string) => (text: string) => text.includes(choice) && !text.includes("pending");
