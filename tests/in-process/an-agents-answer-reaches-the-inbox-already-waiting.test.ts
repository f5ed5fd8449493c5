// The inbox's `waiting` across an agent's answer: the call that answers a follow-up or a briefing
// waits on the person's next turn, so the frame that gives the person the turn must already say an
// agent waits. The call follows the ask only after its commit and a read and a write of its own, so
// the ask is held `waiting` from before the commit; otherwise an inbox would show the person's turn
// with nobody waiting, then a flip. `waiting` is the relay's memory, not the store's: SQLite alone.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { ServerEvent } from "@loopback/shared/generated/types";
import { briefingInput, newProject, openedAsk, questionInput, running, toolReply } from "../mcp/mcp-scene.ts";
import { inProcessScene, type InProcessScene } from "../support/in-process-scene.ts";

let s: InProcessScene;
beforeAll(async () => {
  s = await inProcessScene();
});
afterAll(() => s.dispose());

type AskFrame = Extract<ServerEvent, { ask: unknown }>;
const ofAsk = (askId: string) => (f: ServerEvent): f is AskFrame => "ask" in f && (f as AskFrame).ask.id === askId;

/** Every frame of the ask from the agent's answer on, once the answer's call is back to waiting. */
async function framesAfterAnswer(askId: string, answer: () => Promise<unknown>): Promise<{ status: string; waiting: boolean }[]> {
  const socket = await s.person.socket();
  try {
    const call = running(answer());
    // `next` takes the frame it finds out of those kept.
    const turn = (await socket.next((f) => ofAsk(askId)(f) && f.ask.status === "awaiting_human")) as AskFrame;
    // Whatever the relay sends of the ask once its call follows comes within a few turns of the loop.
    for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 5));
    expect(call.settled).toBe(false);
    return [turn, ...socket.frames.filter(ofAsk(askId))].map((f) => ({ status: f.ask.status, waiting: f.ask.waiting }));
  } finally {
    socket.close();
  }
}

test("an answer to a follow-up reaches the inbox as the person's turn with the agent already waiting, in one frame", async () => {
  const project = newProject();
  const first = running(s.agent.call("ask_question", questionInput(project)));
  const ask = await openedAsk(s.person, project);
  await s.person.reply(ask.id, { outcome: "follow_up", question: "Why?" });
  expect(toolReply(await first).reply?.outcome).toBe("follow_up");

  const seen = await framesAfterAnswer(ask.id, () => s.agent.call("answer_follow_up", { askId: ask.id, answer: "Because." }));
  // The person's turn was shown once, already waiting: no frame said nobody waits, none flipped it.
  expect(seen).toEqual([{ status: "awaiting_human", waiting: true }]);
});

test("an answer on a briefing's points reaches the inbox as the person's turn with the agent already waiting, in one frame", async () => {
  const project = newProject();
  const first = running(s.agent.call("send_briefing", briefingInput(project)));
  const ask = await openedAsk(s.person, project);
  await s.person.reply(ask.id, { outcome: "responded", points: [{ point: "1", text: "Why?" }] });
  expect(toolReply(await first).reply?.outcome).toBe("responded");

  const seen = await framesAfterAnswer(ask.id, () => s.agent.call("answer_briefing", { askId: ask.id, answers: [{ point: "1", answer: "Because." }] }));
  expect(seen).toEqual([{ status: "awaiting_human", waiting: true }]);
});

test("an answer the relay refuses leaves the ask not waiting", async () => {
  const project = newProject();
  const first = running(s.agent.call("ask_question", questionInput(project)));
  const ask = await openedAsk(s.person, project);
  await s.person.reply(ask.id, { outcome: "follow_up", question: "Why?" });
  await first;
  // An image that was never uploaded: refused after the ask was read, before anything is stored.
  const refused = await s.agent.call("answer_follow_up", { askId: ask.id, answer: "See.", content: [{ type: "image", uploadId: "upl_none" }] });
  expect(refused.isError).toBe(true);
  const now = (await s.person.api<{ status: string; waiting: boolean }>("GET", `/asks/${ask.id}`)).body;
  expect(now).toMatchObject({ status: "awaiting_agent", waiting: false });
});
