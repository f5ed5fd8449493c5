// One MCP session: the SDK's low-level Server, serving the contract's JSON Schemas (the SDK's
// registerTool takes only zod) and validating arguments with the contract's valibot schemas.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { problem } from "@loopback/shared/problems";
import type { Caller } from "../auth/gate.ts";
import type { Relay } from "../relay.ts";
import { INSTRUCTIONS } from "./instructions.ts";
import { SqliteTaskStore, TASK_POLL_INTERVAL_MS } from "./task-store.ts";
import { listing, toolError, toolResult, type ToolContext } from "./tool.ts";
import { TOOLS, TOOLS_BY_NAME } from "./tools/index.ts";

export const SERVER_INFO = { name: "loopback", title: "Loopback", version: "0.1.0" };

export function createMcpServer(relay: Relay, caller: Caller): Server {
  const taskStore = new SqliteTaskStore(relay, caller);
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
    if (!tool) {
      // An isError result, as the SDK's McpServer gives, so the model reads which tools there are.
      const refused = unknownTool(request.params.name);
      return asTask ? { task: taskStore.open(undefined, request.params.name, false, asTask, refused) } : refused;
    }
    const ctx: ToolContext = { relay, caller, client: client() };
    const args = request.params.arguments ?? {};

    if (tool.kind === "instant") {
      try {
        return toolResult(tool.run(ctx, args));
      } catch (e) {
        return toolError(e);
      }
    }

    let askId: string;
    try {
      askId = tool.start(ctx, args).askId;
    } catch (e) {
      if (asTask) return { task: taskStore.open(undefined, tool.name, false, asTask, toolError(e)) };
      return toolError(e);
    }
    if (asTask) return { task: taskStore.open(askId, tool.name, tool.resume ?? false, asTask) };

    const progressToken = request.params._meta?.progressToken;
    const reply = await relay.asks.follow(caller, askId, {
      signal: extra.signal,
      budgetMs: relay.config.waitBudgetMs,
      resume: tool.resume,
      progressEveryMs: relay.config.progressEveryMs,
      onProgress:
        progressToken === undefined
          ? undefined
          : (waitedMs) => {
              extra
                .sendNotification({
                  method: "notifications/progress",
                  // Seconds waited, to the millisecond: progress must grow with every notification.
                  params: { progressToken, progress: Math.round(waitedMs) / 1000, message: "Waiting for the person's reply" },
                })
                .catch(() => {});
            },
    });
    return toolResult(reply) satisfies CallToolResult;
  });

  return server;
}

function unknownTool(name: string): CallToolResult {
  const names = TOOLS.map((t) => t.name).join(", ");
  return toolError(problem("tool.unknown", `There is no tool "${name}" here; Loopback's tools are ${names}.`));
}
