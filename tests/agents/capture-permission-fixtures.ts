// `bun tests/agents/capture-permission-fixtures.ts`: has the real Claude Code ask permission for a Bash
// command twice — once answered by a `PermissionRequest` hook, once by an MCP tool named with
// `--permission-prompt-tool` — and writes what each received to tests/agents/fixtures/.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeCode } from "../support/agents/claude-code.ts";
import type { ModelTurn } from "../support/agents/model-script.ts";

const FIXTURES = join(import.meta.dir, "fixtures");
const SCRIPT: ModelTurn[] = [{ tool: "Bash", args: { command: "echo approved > approved.txt", description: "Write approved.txt" } }, { text: "Done." }];
const ALLOW = { behavior: "allow" };

/** A one-tool MCP server whose `approve` tool records its arguments and allows what it is asked. */
function approvalServer() {
  const seen: unknown[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (req.method !== "POST") return new Response(null, { status: 405 });
      const body = await req.json();
      if (body.id === undefined) return new Response(null, { status: 202 });
      const answer = (result: unknown) => Response.json({ jsonrpc: "2.0", id: body.id, result }, { headers: { "Mcp-Session-Id": "approvals" } });
      if (body.method === "initialize") return answer({ protocolVersion: body.params.protocolVersion === "2026-07-28" ? "2025-11-25" : body.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "approvals", version: "1" } });
      if (body.method === "tools/list") return answer({ tools: [{ name: "approve", description: "Asks the person.", inputSchema: { type: "object", additionalProperties: true } }] });
      if (body.method === "tools/call") {
        seen.push(body.params.arguments);
        return answer({ content: [{ type: "text", text: JSON.stringify({ ...ALLOW, updatedInput: body.params.arguments.input }) }] });
      }
      return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "Method not found" } });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, seen, stop: () => server.stop(true) };
}

async function viaHook() {
  const dir = mkdtempSync(join(tmpdir(), "loopback-hook-"));
  const input = join(dir, "permission-request.json");
  const decision = JSON.stringify({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision: ALLOW } });
  const run = await claudeCode({
    relayUrl: "http://127.0.0.1:9",
    token: "unused",
    script: SCRIPT,
    args: ["--allowedTools", "mcp__loopback"],
    settings: { hooks: { PermissionRequest: [{ matcher: "*", hooks: [{ type: "command", command: `cat > ${input}; echo '${decision}'` }] }] } },
  });
  await Promise.race([run.exited, Bun.sleep(60_000)]);
  const out = run.output();
  await run.kill();
  try {
    return JSON.parse(readFileSync(input, "utf8"));
  } catch {
    throw new Error(`the hook never ran:\n${out.slice(-3000)}`);
  }
}

async function viaPromptTool() {
  const approvals = approvalServer();
  const run = await claudeCode({ relayUrl: approvals.url.replace(/\/$/, ""), token: "unused", script: SCRIPT, args: ["--permission-prompt-tool", "mcp__loopback__approve"] });
  await Promise.race([run.exited, Bun.sleep(60_000)]);
  const out = run.output();
  await run.kill();
  approvals.stop();
  if (!approvals.seen.length) throw new Error(`the permission prompt tool was never called:\n${out.slice(-3000)}`);
  return approvals.seen[0];
}

/** The JSON as written, with the throwaway home (and Claude Code's dashed form of it) shown as `/home/ada`. */
function fixture(value: unknown, home: string): string {
  return `${JSON.stringify(value, null, 2).replaceAll(home, "/home/ada").replaceAll(home.replaceAll("/", "-"), "-home-ada")}\n`;
}

const [hook, tool] = await Promise.all([viaHook(), viaPromptTool()]);
const home = String(hook.cwd).replace(/\/project$/, "");
writeFileSync(join(FIXTURES, "claude-code-permission-request-hook-input.json"), fixture(hook, home));
writeFileSync(join(FIXTURES, "claude-code-permission-prompt-tool-arguments.json"), fixture(tool, home));
console.log(fixture({ hook, tool }, home));
