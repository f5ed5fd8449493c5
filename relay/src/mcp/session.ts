// One MCP session: the SDK's low-level Server, serving the contract's JSON Schemas (the SDK's
// registerTool takes only zod) and validating arguments with the contract's valibot schemas. A
// blocking call sent alone is carried by the endpoint's own stream (call-stream.ts) through the same
// `callBlocking`; the Server answers everything else.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { problem } from "@loopback/shared/problems";
import type { AskService } from "../asks/ask-service.ts";
import type { Waiting } from "../asks/waiting.ts";
import type { Caller } from "../auth/gate.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { UploadService } from "../uploads/upload-service.ts";
import { INSTRUCTIONS } from "./instructions.ts";
import { McpTaskStore, TASK_POLL_INTERVAL_MS } from "./task-store.ts";
import { blockingResult, budgetOf, listing, toolError, toolResult, type BlockingTool, type ToolContext } from "./tool.ts";
import { TOOLS, TOOLS_BY_NAME } from "./tools/index.ts";

export const SERVER_INFO = { name: "loopback", title: "Loopback", version: "0.1.0" };

/** What MCP sessions use of the relay. */
export interface McpServices {
  asks: AskService;
  waiting: Waiting;
  uploads: UploadService;
  clock: Clock;
  config: Config;
}

export function createMcpServer(services: McpServices, caller: Caller): Server {
  const { waiting } = services;
  const taskStore = new McpTaskStore(waiting, services.clock, caller);
  const server = new Server(SERVER_INFO, {
    capabilities: {
      tools: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    },
    instructions: INSTRUCTIONS,
    taskStore,
    defaultTaskPollInterval: TASK_POLL_INTERVAL_MS,
  });

  const tools = TOOLS.map(listing);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<any> => {
    const tool = TOOLS_BY_NAME.get(request.params.name as any);
    const asTask = request.params.task;
    if (!tool) {
      // An isError result, as the SDK's McpServer gives, so the model reads which tools there are.
      const refused = unknownTool(request.params.name);
      return asTask ? { task: await taskStore.open(undefined, request.params.name, 0, asTask, refused) } : refused;
    }
    const ctx = toolContext(services, caller, server);
    const args = request.params.arguments ?? {};

    if (tool.kind === "instant") {
      try {
        return toolResult(await tool.run(ctx, args));
      } catch (e) {
        return toolError(e);
      }
    }
    if (!asTask) {
      const progressToken = request.params._meta?.progressToken;
      return callBlocking(services, ctx, tool, args, {
        signal: extra.signal,
        onProgress: progressToken === undefined ? undefined : (waitedMs) => void extra.sendNotification(progress(progressToken, waitedMs)).catch(() => {}),
      });
    }
    let started: Awaited<ReturnType<BlockingTool["start"]>> | undefined;
    let from: number;
    try {
      started = await tool.start(ctx, args);
      from = await waiting.from(caller, started.askId, Boolean(tool.resume || started.reclaimed));
    } catch (e) {
      started?.release?.();
      return { task: await taskStore.open(undefined, tool.name, 0, asTask, toolError(e)) };
    }
    const { askId, opened = false, release } = started;
    try {
      return { task: await taskStore.open(askId, tool.name, from, asTask, undefined, opened) };
    } finally {
      // The task's first poll holds the ask `waiting` from here on.
      release?.();
    }
  });

  return server;
}

/** What a tool of this session may use; the client is the one its `initialize` named. */
export function toolContext(services: McpServices, caller: Caller, server: Server): ToolContext {
  const v = server.getClientVersion();
  const client = v ? `${v.name} ${v.version}`.trim() : undefined;
  return { asks: services.asks, uploads: services.uploads, publicUrl: services.config.publicUrl, caller, client };
}

/** How a blocking call is carried: its cancellation, its progress, and its durable record if it can be resumed. */
export interface CallOptions {
  signal: AbortSignal;
  onProgress?: (waitedMs: number) => void;
  /** The record a client that resumes streams follows this call by (written once the ask is open). */
  record?: { id: string; sessionId: string; requestId: RequestId; progressToken?: string | number };
}

/**
 * Opens (or picks up) the ask and waits for the person's reply. A refusal is an `isError` result; a
 * cancelled wait throws, since nobody reads its result.
 */
export async function callBlocking(services: McpServices, ctx: ToolContext, tool: BlockingTool, args: unknown, opts: CallOptions): Promise<CallToolResult> {
  const { waiting, config } = services;
  const { caller } = ctx;
  const { record } = opts;
  // A call whose stream was primed can be resumed: its record says which ask, from which turn.
  const call = record
    ? (askId: string, fromTurn: number) => ({
        id: record.id,
        sessionId: record.sessionId,
        requestId: JSON.stringify(record.requestId),
        tool: tool.name,
        askId,
        fromTurn,
        progressToken: record.progressToken === undefined ? null : JSON.stringify(record.progressToken),
        createdAt: services.clock.now(),
      })
    : undefined;
  let started: Awaited<ReturnType<BlockingTool["start"]>> | undefined;
  let from: number;
  // A place among the token's waiting calls is taken before anything opens, and kept by the wait.
  let room: (() => void) | undefined;
  try {
    room = waiting.enter(caller);
    started = await tool.start({ ...ctx, call }, args);
    from = await waiting.from(caller, started.askId, Boolean(tool.resume || started.reclaimed));
  } catch (e) {
    room?.();
    started?.release?.();
    return toolError(e);
  }
  const { askId, opened = false, release } = started;
  try {
    // A new ask was stored with it; an ask that was already there gets it now.
    if (call && !started.recorded) await waiting.calls.insert(call(askId, from));
    const reply = await waiting.follow(caller, askId, {
      from,
      opened,
      release,
      room,
      signal: opts.signal,
      budgetMs: budgetOf(tool, config.waitBudgetMs),
      progressEveryMs: config.progressEveryMs,
      onProgress: opts.onProgress,
    });
    return await blockingResult(tool, ctx, reply);
  } catch (e) {
    if (opts.signal.aborted) throw e;
    return toolError(e);
  } finally {
    room?.();
    release?.();
  }
}

/** Seconds waited, to the millisecond: progress must grow with every notification. */
export function progress(progressToken: string | number, waitedMs: number) {
  return {
    method: "notifications/progress" as const,
    params: { progressToken, progress: Math.round(waitedMs) / 1000, message: "Waiting for the person's reply" },
  };
}

function unknownTool(name: string): CallToolResult {
  const names = TOOLS.map((t) => t.name).join(", ");
  return toolError(problem("tool.unknown", `There is no tool "${name}" here; Loopback's tools are ${names}.`));
}
