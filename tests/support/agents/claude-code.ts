// The real Claude Code, headless (`claude -p`), connected to the relay with the README's
// `claude mcp add` line and driven by a scripted Messages API.
import { join } from "node:path";
import { mkdirSync, writeFileSync } from "node:fs";
import { anthropicModel } from "./anthropic-model.ts";
import { agentHome, BIN, configure, runAgent, type AgentRun } from "./agent-process.ts";
import type { ModelTurn } from "./model-script.ts";

export interface ClaudeCodeOptions {
  relayUrl: string;
  token: string;
  /** Calls of Loopback's tools by their own names (`ask_question`), then a text. */
  script: ModelTurn[];
  /** Extra environment, such as `MCP_TOOL_TIMEOUT`. */
  env?: Record<string, string>;
  args?: string[];
  /** Claude Code's user settings (`settings.json`), such as hooks. */
  settings?: Record<string, unknown>;
}

/** Claude Code's name for a tool of the MCP server `loopback`. */
export const claudeTool = (tool: string) => `mcp__loopback__${tool}`;

/**
 * Claude Code defers MCP tools: the model loads one with `ToolSearch` (`select:NAME`) before it
 * can call it, so each Loopback tool's first call is preceded by that search.
 */
export function claudeScript(script: ModelTurn[]): ModelTurn[] {
  const loaded = new Set<string>();
  return script.flatMap((turn): ModelTurn[] => {
    // Claude Code's own tools (`Bash`, `ToolSearch`) are capitalised and need no search.
    if ("text" in turn || /^[A-Z]/.test(turn.tool)) return [turn];
    const name = claudeTool(turn.tool);
    if (loaded.has(name)) return [{ ...turn, tool: name }];
    loaded.add(name);
    // The search comes first, so it is the turn a hold delays.
    return [{ tool: "ToolSearch", args: { query: `select:${name}`, max_results: 1 }, hold: turn.hold }, { tool: name, args: turn.args }];
  });
}

export async function claudeCode(opts: ClaudeCodeOptions): Promise<AgentRun> {
  const model = anthropicModel(claudeScript(opts.script));
  const { home, env: base } = agentHome("claude");
  const project = join(home, "project");
  mkdirSync(project);
  const env = {
    ...base,
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: "dummy",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_AUTOUPDATER: "1",
    ...opts.env,
  };
  if (opts.settings) {
    mkdirSync(env.CLAUDE_CONFIG_DIR, { recursive: true });
    writeFileSync(join(env.CLAUDE_CONFIG_DIR, "settings.json"), JSON.stringify(opts.settings));
  }
  const claude = join(BIN, "claude");
  await configure([claude, "mcp", "add", "-s", "user", "--transport", "http", "loopback", `${opts.relayUrl}/mcp`, "--header", `Authorization: Bearer ${opts.token}`], env, project);
  const cmd = [claude, "-p", "Ask the person which database the cache should use.", "--output-format", "stream-json", "--verbose", "--allowedTools", "mcp__loopback", ...(opts.args ?? [])];
  return runAgent(cmd, { env, cwd: project, home, model });
}
