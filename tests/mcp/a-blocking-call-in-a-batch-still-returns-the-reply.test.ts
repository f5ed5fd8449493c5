import { afterAll, beforeAll, expect, test } from "bun:test";
import { newProject, openedAsk, questionInput, scene, toolReply, type Scene, sessionHeaders } from "./mcp-scene.ts";

// A blocking call sent alone is carried on the relay's own stream; one inside a JSON-RPC batch is
// the SDK's to carry, through the same call. Both must wait for the person and hand the reply over.
let s: Scene;
beforeAll(async () => {
  s = await scene();
});
afterAll(() => s.dispose());

/** The JSON-RPC messages of an SSE body, read until one answers `id`. */
async function answerTo(body: ReadableStream<Uint8Array>, id: string): Promise<any> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of body) {
    text += decoder.decode(chunk, { stream: true });
    for (const line of text.split("\n")) {
      if (!line.startsWith("data: ") || line.length <= 6) continue;
      const message = JSON.parse(line.slice(6));
      if (message.id === id) return message;
    }
  }
  throw new Error("the stream ended without an answer");
}

test("a blocking call sent in a batch waits for the person and returns their reply", async () => {
  const project = newProject();
  const response = await fetch(`${s.relay.url}/mcp`, {
    method: "POST",
    headers: sessionHeaders(s.agent, s.agentToken),
    body: JSON.stringify([{ jsonrpc: "2.0", id: "in-a-batch", method: "tools/call", params: { name: "ask_question", arguments: questionInput(project) } }]),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/event-stream");
  const answer = answerTo(response.body!, "in-a-batch");
  const ask = await openedAsk(s.person, project);
  expect((await s.person.reply(ask.id, { outcome: "answered", selected: ["SQLite"] })).status).toBe(200);
  const { result } = await answer;
  expect(toolReply(result)).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: ["SQLite"] } });
});
