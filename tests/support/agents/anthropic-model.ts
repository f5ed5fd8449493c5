// A scripted stand-in for the Anthropic Messages API on 127.0.0.1, as Claude Code calls it
// (`ANTHROPIC_BASE_URL`): streaming SSE for the agent loop, plain JSON for its side requests,
// `count_tokens` and `/v1/models`.
import { ObservedResults, resultText, turnAfter, type ModelServer, type ModelTurn } from "./model-script.ts";

const MODEL = "claude-sonnet-4-5";
const USAGE = { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };

type Block = { type: string; id?: string; name?: string; tool_use_id?: string; content?: unknown; text?: string };
type Message = { role: string; content: string | Block[] };

export function anthropicModel(script: ModelTurn[]): ModelServer {
  const results = new ObservedResults();
  const requests: unknown[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (req.method === "GET" && path === "/v1/models") return Response.json({ data: [{ type: "model", id: MODEL, display_name: MODEL, created_at: "2025-01-01T00:00:00Z" }], has_more: false, first_id: MODEL, last_id: MODEL });
      if (path === "/v1/messages/count_tokens") return Response.json({ input_tokens: 1 });
      if (path !== "/v1/messages") return new Response("not found", { status: 404 });
      const body = (await req.json()) as { messages: Message[]; tools?: unknown[]; stream?: boolean };
      // The agent loop offers tools; title and summary requests offer none and get a plain text.
      if (!body.tools?.length) return reply([{ type: "text", text: "Scripted." }], "end_turn", body.stream);
      requests.push(body);
      observe(body.messages, results);
      const turn = await turnAfter(script, body.messages.filter((m) => m.role === "assistant").length, results);
      if ("text" in turn) return reply([{ type: "text", text: turn.text }], "end_turn", body.stream);
      const id = `toolu_${body.messages.length}`;
      return reply([{ type: "tool_use", id, name: turn.tool, input: turn.args }], "tool_use", body.stream);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, results, requests, stop: () => server.stop(true) };
}

/** Records the tool results of the conversation's user turns, naming each by the call it answers. */
function observe(messages: Message[], results: ObservedResults): void {
  const names = new Map<string, string>();
  for (const m of messages) {
    if (typeof m.content === "string") continue;
    for (const b of m.content) {
      if (b.type === "tool_use" && b.id) names.set(b.id, b.name ?? "");
      if (b.type === "tool_result" && b.tool_use_id) results.add(b.tool_use_id, names.get(b.tool_use_id) ?? "", resultText(b.content));
    }
  }
}

function reply(content: Record<string, unknown>[], stopReason: string, stream = false): Response {
  const message = { id: `msg_${crypto.randomUUID()}`, type: "message", role: "assistant", model: MODEL, content, stop_reason: stopReason, stop_sequence: null, usage: USAGE };
  if (!stream) return Response.json(message);
  const events: [string, unknown][] = [["message_start", { type: "message_start", message: { ...message, content: [], stop_reason: null } }]];
  content.forEach((block, index) => {
    if (block.type === "text") {
      events.push(["content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } }]);
      events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } }]);
    } else {
      events.push(["content_block_start", { type: "content_block_start", index, content_block: { ...block, input: {} } }]);
      events.push(["content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } }]);
    }
    events.push(["content_block_stop", { type: "content_block_stop", index }]);
  });
  events.push(["message_delta", { type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 1 } }]);
  events.push(["message_stop", { type: "message_stop" }]);
  const text = events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");
  return new Response(text, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } });
}
