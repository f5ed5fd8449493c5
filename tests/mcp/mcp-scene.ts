// What the MCP tests share: the common scene (tests/support/scene.ts) with the agent connected as
// Claude Code, and ways to read a tool's results against the newest frozen revision, which MCP serves.
import { expect } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolReply } from "@loopback/shared/generated/types";
import { REVISION } from "@loopback/shared/generated/revision";
import { PROBLEMS, type ProblemCode } from "@loopback/shared/problems";
import { Agent } from "../support/agent.ts";
import { assertShape } from "../support/contract.ts";
import { Person } from "../support/person.ts";
import { scene as relayScene, type Scene } from "../support/scene.ts";

export { askWhen, newProject, openedAsk, readAsk, running, until, type Scene } from "../support/scene.ts";

/** How Claude Code introduces itself; what the relay shows as `claude-code 2.1.0`. */
const CLAUDE_CODE = { name: "claude-code", version: "2.1.0" };

/** A relay with the person "ada" and her agent, connected as `claude-code 2.1.0`. */
export const scene = (env: Record<string, string> = {}, resumes?: number): Promise<Scene> => relayScene({ env, client: CLAUDE_CODE, resumes });

/** The ToolReply a blocking call returned, checked against the newest frozen revision. */
export function toolReply(result: CallToolResult): ToolReply {
  if (result.isError) throw new Error(`tool refused: ${JSON.stringify(result.content)}`);
  assertShape(REVISION, "ToolReply", result.structuredContent);
  // The same JSON as text, for clients that read only `content`.
  expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
  return result.structuredContent as unknown as ToolReply;
}

/** Asserts a refusal in the problems table's words: `code: message…`. */
export function expectRefusal(result: CallToolResult, code: ProblemCode): string {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const text = (result.content[0] as { text: string }).text;
  expect(text.startsWith(`${code}: ${PROBLEMS[code].message}`) ? code : text).toBe(code);
  return text;
}

export const questionInput = (project: string, extra: Record<string, unknown> = {}) => ({
  question: "Which database should the cache use?",
  options: [{ label: "SQLite" }, { label: "Redis", description: "Another service to run." }, { label: "None" }],
  context: "The cache holds **rendered pages**.",
  project,
  ...extra,
});

export const reviewInput = (project: string, extra: Record<string, unknown> = {}) => ({
  title: "Cache rendered pages",
  content: [
    { type: "markdown", text: "The cache sits in front of the renderer." },
    { type: "code", code: "export const TTL_MS = 60_000;", language: "ts", filename: "cache.ts" },
    { type: "diff", diff: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", filename: "x" },
  ],
  summary: "Adds a cache.",
  project,
  ...extra,
});

/** Points 1, 2 (first section) and 3 (second section). */
export const briefingInput = (project: string, extra: Record<string, unknown> = {}) => ({
  title: "What the profiler found",
  summary: "Three hot spots.",
  sections: [
    { title: "Rendering", points: [{ title: "Templates are compiled per request", detail: "Every request compiles." }, { title: "Images are resized twice" }] },
    { points: [{ title: "The cache is cold after deploys", content: [{ type: "code", code: "warm()" }] }] },
  ],
  project,
  ...extra,
});

/** The smallest PNG there is: a 1×1 pixel. */
export const PNG = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);

/** Uploads a PNG through the agent's upload ticket and returns its upload id. */
export async function uploadPng(agent: Agent): Promise<string> {
  const result = await agent.call("get_upload_ticket", { contentType: "image/png" });
  const ticket = result.structuredContent as { uploadId: string; uploadUrl: string };
  const res = await fetch(ticket.uploadUrl, { method: "PUT", headers: { "Content-Type": "image/png" }, body: PNG });
  expect(res.status).toBe(201);
  return ticket.uploadId;
}

export { Agent, Person };

/** The headers of a POST to /mcp in the agent's own session, for a test that sends JSON-RPC by hand. */
export function sessionHeaders(agent: Agent, token: string): Record<string, string> {
  return {
    Authorization: `Bearer ${token}`,
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "mcp-session-id": agent.transport.sessionId!,
    "mcp-protocol-version": agent.transport.protocolVersion!,
  };
}
