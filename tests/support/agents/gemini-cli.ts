// The real Gemini CLI, headless (`gemini -p`), connected to the relay with
// `gemini mcp add --scope user --transport http …` and driven by a scripted Gemini API.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentHome, BIN, configure, runAgent, type AgentRun } from "./agent-process.ts";
import { geminiModel } from "./gemini-model.ts";
import type { ModelTurn } from "./model-script.ts";

export interface GeminiOptions {
  relayUrl: string;
  token: string;
  /** Calls of Loopback's tools by their own names (`ask_question`), then a text. */
  script: ModelTurn[];
  env?: Record<string, string>;
}

/** Gemini CLI's name for a tool of the MCP server `loopback`. */
export const geminiTool = (tool: string) => `mcp_loopback_${tool}`;

export async function geminiCli(opts: GeminiOptions): Promise<AgentRun> {
  const model = geminiModel(opts.script.map((t) => ("text" in t ? t : { ...t, tool: geminiTool(t.tool) })));
  const { home, env: base } = agentHome("gemini");
  const project = join(home, "project");
  mkdirSync(join(home, ".gemini"), { recursive: true });
  mkdirSync(project);
  // The base-URL variable alone picks an auth type that fails headless: the API key's is named.
  const settings = {
    security: { auth: { selectedType: "gemini-api-key" } },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
  };
  writeFileSync(join(home, ".gemini", "settings.json"), JSON.stringify(settings));
  // One process: the CLI otherwise relaunches itself with a larger heap, and a kill would orphan the child.
  const env = { ...base, GEMINI_CLI_NO_RELAUNCH: "true", GOOGLE_GEMINI_BASE_URL: model.url, GEMINI_API_KEY: "dummy", LOOPBACK_TOKEN: opts.token, ...opts.env };
  const gemini = join(BIN, "gemini");
  await configure([gemini, "mcp", "add", "--scope", "user", "--transport", "http", "loopback", `${opts.relayUrl}/mcp`, "--header", "Authorization: Bearer ${LOOPBACK_TOKEN}"], env, project);
  // `--skip-trust`: in an untrusted folder every MCP server is disabled.
  const cmd = [gemini, "-p", "Ask the person which database the cache should use.", "--yolo", "--skip-trust", "--output-format", "stream-json"];
  return runAgent(cmd, { env, cwd: project, home, model });
}
