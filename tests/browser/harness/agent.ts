// An agent as the relay sees one: the shared MCP SDK agent, with what the browser tests ask of it.
import type { Block, ToolReply, UploadTicket } from "@loopback/shared/generated/types";
import { Agent, structured } from "../../support/agent.ts";

export class TestAgent {
  private constructor(private readonly agent: Agent) {}

  /** `name` is the client name the agent announces, which the inbox shows beside its asks. */
  static async connect(relayUrl: string, token: string, name = "loopback-e2e-agent"): Promise<TestAgent> {
    return new TestAgent(await Agent.connect(relayUrl, token, name, "1.0.0"));
  }

  /** Calls a tool and returns its structured result; a refusal throws with the relay's words. */
  async call<T>(name: string, args: Record<string, unknown>): Promise<T> {
    return structured<T>(await this.agent.call(name, args));
  }

  /** A blocking tool that waits for the person, following `pending` with `wait_for_reply` as an agent should. */
  async waitFor(name: string, args: Record<string, unknown>): Promise<ToolReply> {
    let reply = await this.call<ToolReply>(name, args);
    while (reply.pending) reply = await this.call<ToolReply>("wait_for_reply", { askId: reply.askId });
    return reply;
  }

  /** Asks the person's permission as Claude Code's permission prompt tool does, and returns the decision it reads. */
  async requestApproval(args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const result = await this.agent.call("request_approval", args);
    if (result.isError) throw new Error(`request_approval refused: ${JSON.stringify(result.content)}`);
    return JSON.parse((result.content as { text: string }[])[0]!.text) as Record<string, unknown>;
  }

  /** Uploads an image through a ticket and returns the block that shows it. */
  async uploadImage(bytes: Uint8Array<ArrayBuffer>, caption: string): Promise<Block> {
    const ticket = await this.call<UploadTicket>("get_upload_ticket", { contentType: "image/png" });
    const response = await fetch(ticket.uploadUrl, { method: "PUT", headers: { "Content-Type": "image/png" }, body: new Blob([bytes]) });
    if (!response.ok) throw new Error(`upload failed: ${response.status} ${await response.text()}`);
    return { type: "image", uploadId: ticket.uploadId, caption };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
