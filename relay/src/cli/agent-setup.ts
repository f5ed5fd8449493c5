// What an agent needs to reach the relay, printed beside an agent token: by `serve` on a first start and
// by `token create --agent`.

/** The address a relay on this data directory last said it is reachable at, kept for `token create` to print. */
export const PUBLIC_URL_FILE = "public-url";

export function mcpLines(publicUrl: string, agentToken: string): string {
  const url = `${publicUrl}/mcp`;
  return [
    `  Claude Code:  claude mcp add -s user --transport http loopback ${url} --header "Authorization: Bearer ${agentToken}"`,
    `  Codex:        export LOOPBACK_TOKEN=${agentToken}`,
    `                and in ~/.codex/config.toml:`,
    `                  [mcp_servers.loopback]`,
    `                  url = "${url}"`,
    `                  bearer_token_env_var = "LOOPBACK_TOKEN"`,
  ].join("\n");
}
