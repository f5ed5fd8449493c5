// When Claude Code gives up on a call (its `MCP_TOOL_TIMEOUT` fires and it sends
// `notifications/cancelled`, as Esc does), the call is over: its transport's resume is refused, the
// inbox stops showing the agent waiting within a second, and the person's reply goes to the next
// call that asks the same.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { agentScene, askIdIn, askOpened, askWhen, carries, CLAUDE_CODE, question, readAsk, type AgentScene } from "./agents-scene.ts";

let s: AgentScene;
beforeAll(async () => {
  // A one-second `retry`: a resumed stream would be back within the time the test watches.
  s = await agentScene({ LOOPBACK_STREAM_RETRY_S: "1" });
}, 30_000);
afterAll(() => s.dispose());

test("Claude Code: a call its tool timeout cancelled is never resumed, stops waiting within a second, and the next call gets the reply", async () => {
  const q = question();
  let askAgain!: () => void;
  const run = await s.launch(CLAUDE_CODE, {
    env: { MCP_TOOL_TIMEOUT: "4000" },
    script: [
      { tool: "ask_question", args: q.args },
      { tool: "ask_question", args: q.args, hold: new Promise<void>((r) => (askAgain = r)) },
      { text: "Redis it is." },
    ],
  });
  const ask = await askOpened(s.person, q.project, run);
  await askWhen(s.person, ask.id, (a) => a.waiting, "the call follows it", 30_000);

  const timedOut = await run.results.next("ask_question", () => true, 30_000);
  expect(timedOut.text).not.toContain("Redis");
  await askWhen(s.person, ask.id, (a) => !a.waiting, "the cancelled call no longer follows it", 1_000);
  // Past two `retry`s: a resumed stream would follow the ask again by now.
  for (const end = Date.now() + 2_500; Date.now() < end; await Bun.sleep(100)) expect((await readAsk(s.person, ask.id)).waiting).toBe(false);

  // Answered while nobody waits: it stays for the next call that asks the same.
  expect((await s.person.reply(ask.id, { outcome: "answered", selected: ["Redis"] })).status).toBe(200);
  askAgain();
  const answered = await run.results.next("ask_question", carries("Redis"), 30_000);
  expect(askIdIn(answered.text)).toBe(ask.id);
  expect(await run.exited).toBe(0);
}, 120_000);
