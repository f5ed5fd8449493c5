// Opens an ask the way agents do, through a blocking MCP tool, and finds it in the person's
// snapshot. The call is left running: it returns once the person replies.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Ask } from "@loopback/shared/generated/types";
import type { Agent } from "../support/agent.ts";
import type { Person } from "../support/person.ts";
import { newProject, openedAsk, running } from "../support/scene.ts";

export interface Opened {
  ask: Ask;
  /** The agent's blocking call; already marked handled, so a test may leave it running. */
  call: Promise<CallToolResult>;
}

export async function openAsk(person: Person, agent: Agent, tool: "ask_question" | "request_review" | "send_briefing", args: Record<string, unknown>): Promise<Opened> {
  // The project tells this ask apart from every other in the snapshot.
  const project = (args.project as string | undefined) ?? newProject();
  const call = running(agent.call(tool, { ...args, project }));
  return { ask: await openedAsk(person, project, call), call };
}

export const question = (person: Person, agent: Agent, extra: Record<string, unknown> = {}) =>
  openAsk(person, agent, "ask_question", { question: "Which one?", options: [{ label: "A" }, { label: "B" }, { label: "C" }], ...extra });

export const review = (person: Person, agent: Agent, extra: Record<string, unknown> = {}) =>
  openAsk(person, agent, "request_review", { title: "The change", content: [{ type: "markdown", text: "Look at this." }], ...extra });

/** A briefing of three points, `1`, `2` and `3`. */
export const briefing = (person: Person, agent: Agent, extra: Record<string, unknown> = {}) =>
  openAsk(person, agent, "send_briefing", {
    title: "Findings",
    sections: [{ points: [{ title: "First" }, { title: "Second" }] }, { title: "More", points: [{ title: "Third" }] }],
    ...extra,
  });
