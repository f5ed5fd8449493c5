// The agent's side of a test: the official MCP SDK client over real HTTP.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export class Agent {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;

  constructor(
    readonly baseUrl: string,
    readonly token: string,
    name = "test-agent",
    version = "1.0.0",
    /**
     * How many times a dropped call's stream is resumed before the SDK gives the call up (its default
     * is 2, `retry` apart): a client of its own policy, for a relay that takes longer to come back.
     */
    resumes?: number,
  ) {
    this.transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
      ...(resumes !== undefined && { reconnectionOptions: { maxRetries: resumes, initialReconnectionDelay: 1_000, maxReconnectionDelay: 30_000, reconnectionDelayGrowFactor: 1.5 } }),
    });
    this.client = new Client({ name, version }, { capabilities: { tasks: { list: {}, cancel: {} } } as any });
  }

  static async connect(baseUrl: string, token: string, name?: string, version?: string, resumes?: number): Promise<Agent> {
    const agent = new Agent(baseUrl, token, name, version, resumes);
    await agent.client.connect(agent.transport);
    return agent;
  }

  /**
   * Calls a tool and waits as long as it takes (no client-side timeout). `onresumptiontoken` hears
   * each event id the call's stream brings: from the first, the client can resume the call.
   */
  call(name: string, args: Record<string, unknown>, opts: { signal?: AbortSignal; onprogress?: (p: any) => void; onresumptiontoken?: (token: string) => void } = {}): Promise<CallToolResult> {
    return this.client.callTool({ name, arguments: args }, undefined, {
      timeout: 10 * 60_000,
      signal: opts.signal,
      onprogress: opts.onprogress,
      onresumptiontoken: opts.onresumptiontoken,
      resetTimeoutOnProgress: true,
    }) as Promise<CallToolResult>;
  }

  close() {
    return this.client.close();
  }
}

/** The `structuredContent` of a successful tool result; throws on an `isError` one. */
export function structured<T = any>(result: CallToolResult): T {
  if (result.isError) throw new Error(`tool refused: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

/** The problem code an `isError` result carries (its text starts with the code). */
export function refusal(result: CallToolResult): string {
  if (!result.isError) throw new Error(`expected a refusal, got ${JSON.stringify(result.structuredContent)}`);
  const text = (result.content[0] as { text: string }).text;
  return text.split(":")[0];
}
