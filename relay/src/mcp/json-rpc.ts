// The few JSON-RPC shapes the endpoint reads itself before (or instead of) the SDK: a blocking call
// it carries on its own stream, the ids a request carries or cancels, and its error answers.
import { RELATED_TASK_META_KEY, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { BlockingTool } from "./tool.ts";
import { TOOLS_BY_NAME } from "./tools/index.ts";

/** A blocking tool call the relay carries itself (see `blockingCallOf`). */
export interface BlockingCallRequest {
  id: RequestId;
  tool: BlockingTool;
  args: unknown;
  progressToken?: string | number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is string | number => typeof v === "string" || Number.isSafeInteger(v);

/**
 * One `tools/call` of a blocking tool, not as a task, in exactly the shape and with the headers the
 * SDK's transport accepts; anything else (a batch, a task, a malformed request) goes to the SDK, which
 * answers it as it always has.
 */
export function blockingCallOf(request: Request, body: unknown): BlockingCallRequest | undefined {
  if (!isObject(body) || body.jsonrpc !== "2.0" || body.method !== "tools/call" || !isId(body.id)) return undefined;
  // The SDK's JSON-RPC request is strict about its own keys.
  for (const key in body) if (key !== "jsonrpc" && key !== "id" && key !== "method" && key !== "params") return undefined;
  const params = body.params;
  if (!isObject(params) || typeof params.name !== "string" || params.task !== undefined) return undefined;
  const tool = TOOLS_BY_NAME.get(params.name as never);
  if (tool?.kind !== "blocking") return undefined;
  if (params.arguments !== undefined && !isObject(params.arguments)) return undefined;
  const meta = params._meta;
  if (meta !== undefined && (!isObject(meta) || meta[RELATED_TASK_META_KEY] !== undefined || (meta.progressToken !== undefined && !isId(meta.progressToken)))) return undefined;
  const accept = request.headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return undefined;
  if ((request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase() !== "application/json") return undefined;
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return undefined;
  return { id: body.id, tool, args: params.arguments ?? {}, progressToken: meta?.progressToken as string | number | undefined };
}

/** The request ids a `notifications/cancelled` in the body names. */
export function cancelledIds(body: unknown): RequestId[] {
  const messages = (Array.isArray(body) ? body : [body]) as unknown[];
  return messages.flatMap((m) => (isObject(m) && m.method === "notifications/cancelled" && isObject(m.params) && isId(m.params.requestId) ? [m.params.requestId] : []));
}

/** The ids of the requests in the body. */
export function requestIds(body: unknown): (string | number)[] {
  const messages = (Array.isArray(body) ? body : [body]) as JSONRPCMessage[];
  return messages.flatMap((m) => (m && typeof m === "object" && "method" in m && "id" in m && m.id !== undefined ? [m.id] : []));
}

export function jsonRpcError(status: number, code: number, message: string, headers?: Record<string, string>): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });
}
