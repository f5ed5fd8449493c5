// Past the wait budget a blocking call returns `pending`; the real agents' models then call
// `wait_for_reply` with the ask's id, and that call returns the person's answer.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { agentScene, askIdIn, askOpened, askWhen, carries, CLIENTS, lastResultOf, question, type AgentScene } from "./agents-scene.ts";

let s: AgentScene;
beforeAll(async () => {
  // A two-second budget, so the calls see it run out.
  s = await agentScene({ LOOPBACK_WAIT_BUDGET_S: "2" });
}, 30_000);
afterAll(() => s.dispose());

for (const client of CLIENTS) {
  test.concurrent(`${client.name}: \`pending\`, then \`wait_for_reply\` returns the person's answer`, async () => {
    const q = question();
    const run = await s.launch(client, {
      script: [
        { tool: "ask_question", args: q.args },
        { tool: "wait_for_reply", args: (seen) => ({ askId: askIdIn(lastResultOf(seen, "ask_question").text) }) },
        { text: "Redis it is." },
      ],
    });
    const ask = await askOpened(s.person, q.project, run);
    const pending = await run.results.next("ask_question");
    expect(pending.text).toContain("pending");
    expect(pending.text).toContain("wait_for_reply");
    expect(askIdIn(pending.text)).toBe(ask.id);
    await askWhen(s.person, ask.id, (a) => a.waiting, "wait_for_reply follows it", 30_000);
    expect((await s.person.reply(ask.id, { outcome: "answered", selected: ["Redis"] })).status).toBe(200);
    const result = await run.results.next("wait_for_reply", carries("Redis"));
    expect(askIdIn(result.text)).toBe(ask.id);
    expect(await run.exited).toBe(0);
  }, 90_000);
}
