// An agent as the relay sees one: a real MCP client over Streamable HTTP with an agent token.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Block, ToolReply, UploadTicket } from "@loopback/shared/generated/types";

const CALL_TIMEOUT_MS = 180_000;

export class TestAgent {
  private constructor(private readonly client: Client) {}

  /** `name` is the client name the agent announces, which the inbox shows beside its asks. */
  static async connect(relayUrl: string, token: string, name = "loopback-e2e-agent"): Promise<TestAgent> {
    const client = new Client({ name, version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${relayUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    return new TestAgent(client);
  }

  /** Calls a tool and returns its structured result; a refusal throws with the relay's words. */
  async call<T>(name: string, args: Record<string, unknown>): Promise<T> {
    const result = await this.client.callTool({ name, arguments: args }, undefined, {
      timeout: CALL_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
    });
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
    return result.structuredContent as T;
  }

  /** A blocking tool that waits for the person, following `pending` with `wait_for_reply` as an agent should. */
  async waitFor(name: string, args: Record<string, unknown>): Promise<ToolReply> {
    let reply = await this.call<ToolReply>(name, args);
    while (reply.pending) reply = await this.call<ToolReply>("wait_for_reply", { askId: reply.askId });
    return reply;
  }

  /** Uploads an image through a ticket and returns the block that shows it. */
  async uploadImage(bytes: Uint8Array<ArrayBuffer>, caption: string): Promise<Block> {
    const ticket = await this.call<UploadTicket>("get_upload_ticket", { contentType: "image/png" });
    const response = await fetch(ticket.uploadUrl, { method: "PUT", headers: { "Content-Type": "image/png" }, body: new Blob([bytes]) });
    if (!response.ok) throw new Error(`upload failed: ${response.status} ${await response.text()}`);
    return { type: "image", uploadId: ticket.uploadId, caption };
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
