// The real Codex CLI, headless (`codex exec`), connected to the relay with the README's
// `[mcp_servers.loopback]` lines and driven by a scripted Responses API.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../relay-process.ts";
import { agentHome, BIN, runAgent, type AgentRun } from "./agent-process.ts";
import type { ModelTurn } from "./model-script.ts";
import { openaiResponsesModel } from "./openai-responses-model.ts";

export interface CodexOptions {
  relayUrl: string;
  token: string;
  /** Calls of Loopback's tools by their own names (`ask_question`), then a text. */
  script: ModelTurn[];
  env?: Record<string, string>;
  /** More lines for `[mcp_servers.loopback]`, such as `tool_timeout_sec = 5`. */
  serverLines?: string[];
}

export async function codex(opts: CodexOptions): Promise<AgentRun> {
  const model = openaiResponsesModel(opts.script, (tool) => ({ namespace: "mcp__loopback", name: tool }));
  const { home, env: base } = agentHome("codex");
  const codexHome = join(home, ".codex");
  const project = join(home, "project");
  mkdirSync(codexHome);
  mkdirSync(project);
  writeFileSync(
    join(codexHome, "config.toml"),
    [
      `model = "gpt-5-codex"`,
      `model_provider = "scripted"`,
      `[model_providers.scripted]`,
      `name = "scripted"`,
      `base_url = "${model.url}"`,
      `env_key = "SCRIPTED_API_KEY"`,
      `wire_api = "responses"`,
      `request_max_retries = 0`,
      `stream_max_retries = 0`,
      // The README's lines, with this relay's address.
      `[mcp_servers.loopback]`,
      `url = "${opts.relayUrl}/mcp"`,
      `bearer_token_env_var = "LOOPBACK_TOKEN"`,
      ...(opts.serverLines ?? []),
      "",
    ].join("\n"),
  );
  // Codex syncs plugins from github.com and chatgpt.com at start: a proxy port nobody listens on refuses them at once.
  const refused = `http://127.0.0.1:${await freePort()}`;
  const env = { ...base, CODEX_HOME: codexHome, SCRIPTED_API_KEY: "dummy", LOOPBACK_TOKEN: opts.token, HTTPS_PROXY: refused, HTTP_PROXY: refused, NO_PROXY: "127.0.0.1,localhost", ...opts.env };
  const cmd = [join(BIN, "codex"), "exec", "--skip-git-repo-check", "--json", "-C", project, "Ask the person which database the cache should use."];
  return runAgent(cmd, { env, cwd: project, home, model });
}
