// `loopback approve-hook`: Claude Code's `PermissionRequest` hook. It reads the request Claude Code
// writes on standard input, raises it as an approval in the person's inbox through the relay's own
// `request_approval` tool (so the wait has the same progress, restarts and resumes as any call), and
// prints the person's decision as Claude Code reads it. When the relay cannot be reached or refuses
// the token, it prints nothing and exits 0: Claude Code then asks in its own prompt. It never allows
// anything the person did not.
import { basename } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { PermissionDecision } from "@loopback/shared/generated/types";
import { touchesOnDisk } from "./hook-touches.ts";

/** What Claude Code sends a `PermissionRequest` hook, as far as the hook reads it. */
interface HookInput {
  hook_event_name?: string;
  tool_name?: string;
  tool_input?: Record<string, unknown>;
  tool_use_id?: string;
  cwd?: string;
}

/** A day: the person decides in their own time; Claude Code's own hook timeout is what bounds it. */
const NO_TIMEOUT_MS = 24 * 60 * 60_000;

export interface HookRun {
  stdin: string;
  env: Record<string, string | undefined>;
  /** Where the relay's texts go: Claude Code shows a hook's standard error in its transcript. */
  warn(line: string): void;
}

/** The hook's standard output: the decision, or nothing to leave it to Claude Code's own prompt. */
export async function approveHook({ stdin, env, warn }: HookRun): Promise<string> {
  let request: HookInput;
  try {
    request = JSON.parse(stdin) as HookInput;
  } catch {
    warn("loopback approve-hook: standard input is not the JSON Claude Code sends a PermissionRequest hook; asking in Claude Code instead.");
    return "";
  }
  const { tool_name: tool, tool_input: input } = request;
  if (!tool || !input || typeof input !== "object") {
    warn("loopback approve-hook: the request names no tool or input; asking in Claude Code instead.");
    return "";
  }
  const token = env.LOOPBACK_TOKEN;
  if (!token) {
    warn("loopback approve-hook: LOOPBACK_TOKEN is not set (an agent token: `loopback token create --agent`); asking in Claude Code instead.");
    return "";
  }
  const relay = (env.LOOPBACK_URL || "http://127.0.0.1:8370").replace(/\/+$/, "");
  const cwd = request.cwd || process.cwd();
  const args = {
    tool_name: tool,
    input,
    ...(request.tool_use_id && { tool_use_id: request.tool_use_id }),
    cwd,
    project: env.LOOPBACK_PROJECT || basename(cwd),
    ...(touchesOnDisk(tool, input, cwd) && { touches: touchesOnDisk(tool, input, cwd) }),
  };
  let decision: PermissionDecision;
  try {
    decision = await decide(relay, token, args);
  } catch (e) {
    warn(`loopback approve-hook: could not reach the relay at ${relay} (${(e as Error).message}); asking in Claude Code instead.`);
    return "";
  }
  return JSON.stringify({ hookSpecificOutput: { hookEventName: "PermissionRequest", decision } });
}

async function decide(relay: string, token: string, args: Record<string, unknown>): Promise<PermissionDecision> {
  const client = new Client({ name: "loopback-approve-hook", version: "0.1.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${relay}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: "request_approval", arguments: args }, undefined, { timeout: NO_TIMEOUT_MS, resetTimeoutOnProgress: true });
    if (result.isError) throw new Error(textOf(result.content) || "the relay refused the request");
    return JSON.parse(textOf(result.content)) as PermissionDecision;
  } finally {
    await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
  }
}

const textOf = (content: unknown) => (Array.isArray(content) ? content.map((c) => (c as { text?: string }).text ?? "").join(" ") : "");
