// What every MCP tool is: a name, words for the model, the contract's shapes, and a run function
// that is a thin adapter over the ask service. Results carry `structuredContent` and the same JSON
// as text; refusals become `isError` results in the problems table's words.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { toolJsonSchemas } from "@loopback/shared/generated/tool-schemas";
import { LoopbackProblem, problem } from "@loopback/shared/problems";
import { TOOL_SHAPES, type ToolName } from "@loopback/shared/tool-catalog";
import type { AskService, CallRecordOf, Opened } from "../asks/ask-service.ts";
import type { Caller } from "../auth/gate.ts";
import type { UploadService } from "../uploads/upload-service.ts";
import { log } from "../logging/log.ts";

/** What a tool may use: the services, never the whole relay. */
export interface ToolContext {
  asks: AskService;
  uploads: UploadService;
  /** Where people reach the relay: inbox links start with it. */
  publicUrl: string;
  caller: Caller;
  /** The MCP client's name and version from `initialize`, such as `claude-code 2.1.0`. */
  client?: string;
  /** The durable record of this call, when it can be resumed: a new ask is stored with it. */
  call?: CallRecordOf;
}

interface ToolBase {
  name: ToolName;
  title: string;
  description: string;
  readOnly?: boolean;
}

/** A tool that answers at once. */
export interface InstantTool extends ToolBase {
  kind: "instant";
  run(ctx: ToolContext, args: unknown): unknown | Promise<unknown>;
}

/**
 * A tool that puts something in front of the person and waits for their reply: `start` opens or
 * answers (and may refuse), then the adapter waits on the returned ask.
 */
export interface BlockingTool extends ToolBase {
  kind: "blocking";
  start(ctx: ToolContext, args: unknown): Promise<Pick<Opened, "askId"> & Partial<Opened>>;
  /** Whether the wait may hand back a reply the agent was already given (it lost the result). */
  resume?: boolean;
}

export type Tool = InstantTool | BlockingTool;

export function listing(tool: Tool) {
  const shapes = TOOL_SHAPES[tool.name];
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toolJsonSchemas[shapes.input],
    outputSchema: toolJsonSchemas[shapes.output],
    annotations: { title: tool.title, readOnlyHint: tool.readOnly ?? false, destructiveHint: false, openWorldHint: false },
    ...(tool.kind === "blocking" ? { execution: { taskSupport: "optional" as const } } : {}),
  };
}

export function toolResult(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

export function toolError(error: unknown): CallToolResult {
  if (!(error instanceof LoopbackProblem)) log("mcp").error("internal error in a tool: {message}", { message: error instanceof Error ? error.message : String(error), error });
  const refusal = error instanceof LoopbackProblem ? error : problem("internal");
  return { content: [{ type: "text", text: `${refusal.code}: ${refusal.message}` }], isError: true };
}
