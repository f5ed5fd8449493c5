// What the MCP tests share: a real relay, the person answering through the API, agents over the
// official SDK client, and ways to find the ask a running call opened and to read its results
// against the frozen revision 2.
import { expect } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Ask, ToolReply } from "@loopback/shared/generated/types";
import { PROBLEMS, type ProblemCode } from "@loopback/shared/problems";
import { Agent } from "../support/agent.ts";
import { assertShape } from "../support/contract.ts";
import { Person } from "../support/person.ts";
import { RelayProcess } from "../support/relay-process.ts";

export interface Scene {
  relay: RelayProcess;
  person: Person;
  agent: Agent;
  agentToken: string;
  dispose(): Promise<void>;
}

/** A relay with the person "ada" and her agent, connected as `claude-code 2.1.0`. */
export async function scene(env: Record<string, string> = {}): Promise<Scene> {
  const relay = await new RelayProcess({ env }).start();
  const person = new Person(relay.url, await relay.token("ada"));
  const agentToken = await relay.token("ada", { agent: true });
  const agent = await Agent.connect(relay.url, agentToken, "claude-code", "2.1.0");
  return {
    relay,
    person,
    agent,
    agentToken,
    async dispose() {
      await agent.close().catch(() => {});
      // A relay that answered anything as an internal error failed, whatever the tests saw.
      const log = relay.log;
      await relay.dispose();
      if (log.includes("internal error")) throw new Error(`the relay logged an internal error:\n${log}`);
    },
  };
}

let projects = 0;
/** A project name no other ask of the run has, to find an ask by. */
export const newProject = () => `project-${++projects}-${crypto.randomUUID().slice(0, 6)}`;

/** A call left running: it is marked handled, so a test may end without awaiting it. */
export function running<T>(call: Promise<T>): Promise<T> & { settled: boolean } {
  const tracked = call as Promise<T> & { settled: boolean };
  tracked.settled = false;
  call.then(
    () => (tracked.settled = true),
    () => (tracked.settled = true),
  );
  return tracked;
}

/** Waits until `check` gives something, or fails saying `what`. */
export async function until<T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await Bun.sleep(10);
  }
}

/** The open ask of `project`, once the call that opens it has. */
export async function openedAsk(person: Person, project: string, call?: { settled: boolean }): Promise<Ask> {
  return until(async () => {
    const ask = (await person.snapshot()).open.find((a) => a.project === project);
    if (!ask && call?.settled) throw new Error(`the call for ${project} returned without opening an ask`);
    return ask;
  }, `an ask of ${project} is open`);
}

export async function readAsk(person: Person, askId: string): Promise<Ask> {
  const res = await person.api<Ask>("GET", `/asks/${askId}`);
  expect(res.status).toBe(200);
  return res.body;
}

/** The ask, once it stands as `matches` says. */
export async function askWhen(person: Person, askId: string, matches: (ask: Ask) => boolean, what = "it matches", timeoutMs = 5000): Promise<Ask> {
  return until(
    async () => {
      const ask = await readAsk(person, askId);
      return matches(ask) ? ask : undefined;
    },
    `ask ${askId}: ${what}`,
    timeoutMs,
  );
}

/** The ToolReply a blocking call returned, checked against the frozen revision 2. */
export function toolReply(result: CallToolResult): ToolReply {
  if (result.isError) throw new Error(`tool refused: ${JSON.stringify(result.content)}`);
  assertShape("2", "ToolReply", result.structuredContent);
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
