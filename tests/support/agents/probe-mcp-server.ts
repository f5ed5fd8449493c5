// A hand-written Streamable HTTP MCP server that records every request a client sends and answers its
// one tool, `probe`, in the ways a relay might: a stream that opens with a priming event (an `id:`
// and no `data:`), then the result, a clean end, or a dropped connection, after which only a `GET`
// with `Last-Event-ID` gets the result. It shows what a real client does with each; it is not Loopback.
export interface ProbeRequest {
  at: number;
  method: string;
  /** The JSON-RPC method of a POST, when it carries one. */
  rpc?: string;
  headers: Record<string, string>;
  body?: any;
}

export interface ProbeServer {
  readonly url: string;
  readonly requests: ProbeRequest[];
  stop(): void;
}

const SESSION = "probe-session-1";
const sse = (text: string) => new Response(text, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } });

/** How the stream of each `probe` call goes, in call order; past the list, the result comes at once. */
export const PROBE_CALLS = [
  { priming: "id only", then: "result" },
  { priming: "id only", then: "clean end" },
  { priming: "id and empty data", then: "clean end" },
  { priming: "id only", then: "dropped connection" },
  { priming: "id and empty data", then: "dropped connection" },
  { priming: "id and {} in an event of its own type", then: "clean end" },
  { priming: "id and {} in an event of its own type", then: "dropped connection" },
] as const;

const PRIMING = {
  /** An event with an `id:` and no `data:` line: by the SSE rules it dispatches nothing, only sets the last event id. */
  "id only": (id: string) => `id: ${id}\nretry: 500\n\n`,
  /** The form the MCP 2025-11-25 revision gives: an `id:` and an empty `data:`. */
  "id and empty data": (id: string) => `id: ${id}\nretry: 500\ndata: \n\n`,
  /** An event a client reads as no message (not of type `message`) whose data is not empty. */
  "id and {} in an event of its own type": (id: string) => `event: opening\nid: ${id}\nretry: 500\ndata: {}\n\n`,
};

/**
 * Answers `probe` calls as PROBE_CALLS says. A result left waiting goes to a `GET` with its
 * `Last-Event-ID`; a resume naming an id of no waiting call (a client that missed the priming event)
 * gets the oldest waiting result anyway, so the call ends and the id it sent is on record.
 */
export function probeMcpServer(): ProbeServer {
  const requests: ProbeRequest[] = [];
  let calls = 0;
  const held = new Map<string, unknown>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const headers = req.headers.toJSON();
      const body = req.method === "POST" ? await req.json().catch(() => undefined) : undefined;
      requests.push({ at: Date.now(), method: req.method, rpc: body?.method, headers, body });
      if (req.method === "DELETE") return new Response(null, { status: 200 });
      if (req.method === "GET") {
        const last = headers["last-event-id"];
        const key = last && (held.has(last) ? last : held.keys().next().value);
        if (!key) return new Response(null, { status: 405 });
        const message = held.get(key);
        held.delete(key);
        return sse(`id: ${key}-result\ndata: ${JSON.stringify(message)}\n\n`);
      }
      if (!body || body.id === undefined) return new Response(null, { status: 202 });
      const answer = (result: unknown) => ({ jsonrpc: "2.0", id: body.id, result });
      switch (body.method) {
        case "initialize":
          return Response.json(answer({ protocolVersion: body.params.protocolVersion === "2026-07-28" ? "2025-11-25" : body.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "probe", version: "1" } }), { headers: { "Mcp-Session-Id": SESSION } });
        case "tools/list":
          // Loopback's annotations: Codex runs a tool without asking only when it says it destroys nothing.
          return Response.json(answer({ tools: [{ name: "probe", description: "Returns a word.", inputSchema: { type: "object", properties: {} }, annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false } }] }));
        case "tools/call": {
          const n = ++calls;
          const way = PROBE_CALLS[n - 1] ?? { priming: "id only", then: "result" };
          const result = answer({ content: [{ type: "text", text: way.then === "result" ? `probe-${n} answered on its stream` : `probe-${n} answered on the resumed stream` }] });
          const priming = PRIMING[way.priming](`call-${n}`);
          if (way.then === "result") return sse(`${priming}id: call-${n}-result\ndata: ${JSON.stringify(result)}\n\n`);
          held.set(`call-${n}`, result);
          if (way.then === "clean end") return sse(priming);
          const dropped = new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode(priming));
              setTimeout(() => controller.error(new Error("the probe drops the connection")), 100);
            },
          });
          return new Response(dropped, { headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" } });
        }
        default:
          return Response.json({ jsonrpc: "2.0", id: body.id, error: { code: -32601, message: "Method not found" } });
      }
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => server.stop(true) };
}
