// One MCP session's Server: the SDK's low-level Server, serving the contract's JSON Schemas (the SDK's
// registerTool takes only zod) and validating arguments with the contract's valibot schemas. A
// blocking call sent alone is carried by the endpoint's own stream; one that reaches the Server (in a
// batch) is the same blocking call (blocking-call.ts), and so is a task's start.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { problem } from "@loopback/shared/problems";
import type { AskService } from "../asks/ask-service.ts";
import type { Waiting } from "../asks/waiting.ts";
import type { Caller } from "../auth/gate.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { CallRecords, TaskRecords } from "../storage/store.ts";
import type { UploadService } from "../uploads/upload-service.ts";
import { begin, type Begun, type BlockingCalls } from "./blocking-call.ts";
import { INSTRUCTIONS } from "./instructions.ts";
import { McpTaskStore, TASK_POLL_INTERVAL_MS } from "./task-store.ts";
import { assertTaskTtl } from "./task-ttl.ts";
import { listing, toolError, toolResult, type ToolContext } from "./tool.ts";
import { TOOLS, TOOLS_BY_NAME } from "./tools/index.ts";
import type { TaskLifetimes } from "./task-lifetimes.ts";

export const SERVER_INFO = { name: "loopback", title: "Loopback", version: "0.1.0" };

/** What MCP sessions use of the relay. */
export interface McpServices {
  asks: AskService;
  waiting: Waiting;
  uploads: UploadService;
  clock: Clock;
  taskLifetimes: TaskLifetimes;
  config: Config;
  store: { calls: CallRecords; tasks: TaskRecords };
}

/**
 * One JSON Schema validator for every session. The SDK builds an Ajv of its own for each server
 * otherwise (a quarter of a millisecond per session, a twentieth of a relay's processor time while a
 * thousand agents connect and wait), only to check replies to elicitations, which the relay never sends.
 */
const VALIDATOR = new AjvJsonSchemaValidator();

export function createMcpServer(services: McpServices, caller: Caller, calls: BlockingCalls): Server {
  const taskStore = new McpTaskStore(services.waiting, services.store.tasks, services.clock, caller, services.taskLifetimes);
  const server = new Server(SERVER_INFO, {
    capabilities: {
      tools: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
    },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: VALIDATOR,
    taskStore,
    defaultTaskPollInterval: TASK_POLL_INTERVAL_MS,
  });

  const tools = TOOLS.map(listing);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<any> => {
    const tool = TOOLS_BY_NAME.get(request.params.name as any);
    const asTask = request.params.task;
    if (asTask) assertTaskTtl(asTask);
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
      const call = calls.open(caller, undefined, server.getClientVersion()?.name);
      const cancel = () => call.cancel();
      extra.signal.addEventListener("abort", cancel, { once: true });
      try {
        return await call.start(ctx, tool, args, progressToken === undefined ? undefined : (waitedMs) => void extra.sendNotification(progress(progressToken, waitedMs)).catch(() => {}));
      } finally {
        extra.signal.removeEventListener("abort", cancel);
      }
    }
    const start = async () => {
      let begun: Begun;
      try {
        begun = await begin(services, ctx, tool, args);
      } catch (e) {
        return { task: await taskStore.open(undefined, tool.name, 0, asTask, toolError(e)) };
      }
      try {
        return { task: await taskStore.open(begun.askId, tool.name, begun.from, asTask, undefined, begun.opened) };
      } finally {
        // The task's first poll holds the ask `waiting` from here on.
        begun.release?.();
      }
    };
    try {
      // A task waits on the person as a call does: it counts among the token's waiting calls.
      return await services.waiting.asTask(caller, () => services.store.tasks.workingFor(caller.tokenId, services.clock.steadyWallMs()), start);
    } catch (e) {
      return { task: await taskStore.open(undefined, tool.name, 0, asTask, toolError(e)) };
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
