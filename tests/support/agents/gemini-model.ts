// A scripted stand-in for the Gemini API on 127.0.0.1, as Gemini CLI calls it
// (`GOOGLE_GEMINI_BASE_URL`): `streamGenerateContent` as server-sent events for the agent loop,
// `generateContent` for its side checks, `countTokens`.
import { ObservedResults, turnAfter, type ModelServer, type ModelTurn } from "./model-script.ts";

type Part = { text?: string; functionCall?: { name: string; args?: unknown; id?: string }; functionResponse?: { name: string; id?: string; response?: unknown } };
type Content = { role: string; parts: Part[] };

const VERDICT = { next_speaker: "user", reasoning: "Scripted.", complexity_reasoning: "Scripted.", complexity_score: 1 };
const USAGE = { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 };

export function geminiModel(script: ModelTurn[]): ModelServer {
  const results = new ObservedResults();
  const requests: unknown[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const { pathname } = new URL(req.url);
      if (pathname.endsWith(":countTokens")) return Response.json({ totalTokens: 1 });
      if (req.method !== "POST" || !/:(stream)?generateContent$/i.test(pathname)) return new Response("not found", { status: 404 });
      const body = (await req.json()) as { contents: Content[]; tools?: { functionDeclarations?: unknown[] }[] };
      const loop = body.tools?.some((t) => t.functionDeclarations?.length);
      // Side checks (whose turn it is next, which model to route to) read a JSON verdict: the person
      // speaks next, the task is simple.
      if (!loop) return answer(pathname, [{ text: JSON.stringify(VERDICT) }]);
      requests.push(body);
      observe(body.contents, results);
      // The CLI seeds the history with turns of its own: only the model's tool calls count as scripted turns.
      const called = body.contents.filter((c) => c.role === "model" && c.parts.some((p) => p.functionCall)).length;
      const turn = await turnAfter(script, called, results);
      return answer(pathname, ["text" in turn ? { text: turn.text } : { functionCall: { name: turn.tool, args: turn.args } }]);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, results, requests, stop: () => server.stop(true) };
}

function observe(contents: Content[], results: ObservedResults): void {
  contents.forEach((c, i) =>
    c.parts.forEach((p, j) => {
      if (p.functionResponse) results.add(p.functionResponse.id ?? `${i}:${j}`, p.functionResponse.name, JSON.stringify(p.functionResponse.response));
    }),
  );
}

function answer(pathname: string, parts: Part[]): Response {
  const chunk = { candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }], usageMetadata: USAGE, modelVersion: "gemini-2.5-pro" };
  if (!pathname.toLowerCase().endsWith(":streamgeneratecontent")) return Response.json(chunk);
  return new Response(`data: ${JSON.stringify(chunk)}\r\n\r\n`, { headers: { "Content-Type": "text/event-stream" } });
}
