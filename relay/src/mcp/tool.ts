// What every MCP tool is: a name, words for the model, the contract's shapes, and a run function
// that is a thin adapter over the ask service. Results carry `structuredContent` and the same JSON
// as text; refusals become `isError` results in the problems table's words.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { toolJsonSchemas } from "@loopback/shared/generated/tool-schemas";
import { LoopbackProblem, problem } from "@loopback/shared/problems";
import { TOOL_SHAPES, type ToolName } from "@loopback/shared/tool-catalog";
import type { AskService, CallRecordOf, Opened } from "../asks/ask-service.ts";
import type { Ask, ToolReply } from "@loopback/shared/generated/types";
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
  /** Waits for the person however long they take: its client cannot read a `pending`. */
  unbudgeted?: boolean;
  /**
   * The result in the tool's own shape, when it is not the `ToolReply` itself, sent as text alone:
   * Claude Code refuses a permission prompt tool's result that is not a single text block, so such a
   * tool declares no output schema and gives no `structuredContent`.
   */
  present?(result: ToolReply, askOf: () => Promise<Ask>): Promise<unknown>;
}

export type Tool = InstantTool | BlockingTool;

export function listing(tool: Tool) {
  const shapes = TOOL_SHAPES[tool.name];
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toolJsonSchemas[shapes.input],
    ...(tool.kind === "blocking" && tool.present ? {} : { outputSchema: toolJsonSchemas[shapes.output] }),
    annotations: { title: tool.title, readOnlyHint: tool.readOnly ?? false, destructiveHint: false, openWorldHint: false },
    // A task's result is a ToolReply: a tool with a shape of its own is called plainly.
    ...(tool.kind === "blocking" && !tool.present ? { execution: { taskSupport: "optional" as const } } : {}),
  };
}

/** A blocking tool's result, in its own shape; a refusal as an `isError` result. */
export async function blockingResult(tool: BlockingTool, reply: ToolReply, askOf: () => Promise<Ask>): Promise<CallToolResult> {
  if (!tool.present) return toolResult(reply);
  try {
    return { content: [{ type: "text", text: JSON.stringify(await tool.present(reply, askOf)) }] };
  } catch (e) {
    return toolError(e);
  }
}

export function toolResult(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

export function toolError(error: unknown): CallToolResult {
  if (!(error instanceof LoopbackProblem)) log("mcp").error("internal error in a tool: {message}", { message: error instanceof Error ? error.message : String(error), error });
  const refusal = error instanceof LoopbackProblem ? error : problem("internal");
  return { content: [{ type: "text", text: `${refusal.code}: ${refusal.message}` }], isError: true };
}
