// One MCP session: the SDK's low-level Server, serving the contract's JSON Schemas (the SDK's
// registerTool takes only zod) and validating arguments with the contract's valibot schemas.
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
import { listing, toolError, toolResult, type BlockingTool, type ToolContext } from "./tool.ts";
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

/** The durable record of a blocking call whose stream was primed for resuming, if it has one. */
export type CallOf = (sessionId: string | undefined, requestId: RequestId) => string | undefined;

export function createMcpServer(services: McpServices, caller: Caller, callOf: CallOf): Server {
  const { asks, waiting, config } = services;
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

  const client = () => {
    const v = server.getClientVersion();
    return v ? `${v.name} ${v.version}`.trim() : undefined;
  };
  const tools = TOOLS.map(listing);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<any> => {
    const tool = TOOLS_BY_NAME.get(request.params.name as any);
    const asTask = request.params.task;
    const callId = callOf(extra.sessionId, extra.requestId);
    if (!tool) {
      // An isError result, as the SDK's McpServer gives, so the model reads which tools there are.
      const refused = unknownTool(request.params.name);
      return asTask ? { task: await taskStore.open(undefined, request.params.name, 0, asTask, refused) } : refused;
    }
    const args = request.params.arguments ?? {};
    const progressToken = request.params._meta?.progressToken;
    const sessionId = extra.sessionId;
    // A call whose stream was primed can be resumed: its record says which ask, from which turn.
    const record =
      callId && sessionId
        ? (askId: string, fromTurn: number) => ({
            id: callId,
            sessionId,
            requestId: JSON.stringify(extra.requestId),
            tool: tool.name,
            askId,
            fromTurn,
            progressToken: progressToken === undefined ? null : JSON.stringify(progressToken),
            createdAt: services.clock.now(),
          })
        : undefined;
    const ctx: ToolContext = { asks, uploads: services.uploads, publicUrl: config.publicUrl, caller, client: client(), call: asTask ? undefined : record };

    if (tool.kind === "instant") {
      try {
        return toolResult(await tool.run(ctx, args));
      } catch (e) {
        return toolError(e);
      }
    }

    let started: Awaited<ReturnType<BlockingTool["start"]>> | undefined;
    let from: number;
    // A place among the token's waiting calls is taken before anything opens, and kept by the wait.
    let room: (() => void) | undefined;
    try {
      if (!asTask) room = waiting.enter(caller);
      started = await tool.start(ctx, args);
      from = await waiting.from(caller, started.askId, Boolean(tool.resume || started.reclaimed));
    } catch (e) {
      room?.();
      started?.release?.();
      if (asTask) return { task: await taskStore.open(undefined, tool.name, 0, asTask, toolError(e)) };
      return toolError(e);
    }
    const { askId, opened = false, release } = started;
    if (asTask) {
      try {
        return { task: await taskStore.open(askId, tool.name, from, asTask, undefined, opened) };
      } finally {
        // The task's first poll holds the ask `waiting` from here on.
        release?.();
      }
    }

    try {
      // A new ask was stored with it; an ask that was already there gets it now.
      if (record && !started.recorded) await waiting.calls.insert(record(askId, from));
      const reply = await waiting.follow(caller, askId, {
        from,
        opened,
        release,
        room,
        signal: extra.signal,
        budgetMs: config.waitBudgetMs,
        progressEveryMs: config.progressEveryMs,
        onProgress:
          progressToken === undefined
            ? undefined
            : (waitedMs) => {
                extra.sendNotification(progress(progressToken, waitedMs)).catch(() => {});
              },
      });
      return toolResult(reply) satisfies CallToolResult;
    } catch (e) {
      if (extra.signal.aborted) throw e;
      return toolError(e);
    } finally {
      room?.();
      release?.();
    }
  });

  return server;
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
