// The everyday path, with the agents people run: the model calls `ask_question`, the person answers
// over REST, and the answer is what the agent hands back to its model.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { agentScene, askIdIn, askOpened, carries, CLIENTS, question, type AgentScene } from "./agents-scene.ts";

let s: AgentScene;
beforeAll(async () => {
  s = await agentScene();
}, 30_000);
afterAll(() => s.dispose());

for (const client of CLIENTS) {
  test.concurrent(`${client.name}: the person's answer is the result its model gets`, async () => {
    const q = question();
    const run = await s.launch(client, { script: [{ tool: "ask_question", args: q.args }, { text: "Redis it is." }] });
    const ask = await askOpened(s.person, q.project, run);
    expect((await s.person.reply(ask.id, { outcome: "answered", selected: ["Redis"] })).status).toBe(200);
    const result = await run.results.next("ask_question", carries("Redis"));
    expect(askIdIn(result.text)).toBe(ask.id);
    expect(await run.exited).toBe(0);
  }, 90_000);
}
