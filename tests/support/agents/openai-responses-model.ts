// A scripted stand-in for the OpenAI Responses API on 127.0.0.1, as Codex calls it
// (`POST /v1/responses`, answered as server-sent events).
import { ObservedResults, resultText, turnAfter, type ModelServer, type ModelTurn } from "./model-script.ts";

type Item = { type: string; role?: string; call_id?: string; name?: string; namespace?: string; output?: unknown };

/** How a scripted turn's tool is named in the request: Codex may group MCP tools in a namespace. */
export type ToolNamer = (tool: string) => { name: string; namespace?: string };

export function openaiResponsesModel(script: ModelTurn[], name: ToolNamer = (tool) => ({ name: tool })): ModelServer {
  const results = new ObservedResults();
  const requests: unknown[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (req.method === "GET" && path.endsWith("/models")) return Response.json({ object: "list", data: [], models: [] });
      if (req.method !== "POST" || !path.endsWith("/responses")) return new Response("not found", { status: 404 });
      const body = (await req.json()) as { input: Item[] };
      requests.push(body);
      const input = Array.isArray(body.input) ? body.input : [];
      observe(input, results);
      const answered = input.filter((i) => i.type === "function_call" || (i.type === "message" && i.role === "assistant")).length;
      const turn = await turnAfter(script, answered, results);
      const item = "text" in turn
        ? { type: "message", role: "assistant", id: `msg_${answered}`, status: "completed", content: [{ type: "output_text", text: turn.text, annotations: [] }] }
        : { type: "function_call", id: `fc_${answered}`, call_id: `call_${answered}_${crypto.randomUUID().slice(0, 8)}`, ...name(turn.tool), arguments: JSON.stringify(turn.args), status: "completed" };
      return stream(item);
    },
  });
  return { url: `http://127.0.0.1:${server.port}/v1`, results, requests, stop: () => server.stop(true) };
}

function observe(input: Item[], results: ObservedResults): void {
  const names = new Map<string, string>();
  for (const i of input) {
    if (i.type === "function_call" && i.call_id) names.set(i.call_id, [i.namespace, i.name].filter(Boolean).join("__"));
    if (i.type === "function_call_output" && i.call_id) results.add(i.call_id, names.get(i.call_id) ?? "", resultText(i.output));
  }
}

function stream(item: Record<string, unknown>): Response {
  const id = `resp_${crypto.randomUUID()}`;
  const usage = { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 };
  const events: Record<string, unknown>[] = [
    { type: "response.created", response: { id, object: "response", status: "in_progress", output: [] } },
    { type: "response.output_item.added", output_index: 0, item },
    { type: "response.output_item.done", output_index: 0, item },
    { type: "response.completed", response: { id, object: "response", status: "completed", output: [item], usage } },
  ];
  const text = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
  return new Response(text, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } });
}
