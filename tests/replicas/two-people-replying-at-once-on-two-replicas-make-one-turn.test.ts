// Two people in one space reply to the same ask at the same instant, each on another replica. One
// wins with 200; the other is told `409 ask.not_your_turn`; the thread holds the winner's turn and
// no other, as every replica reads it. A follow-up hands the move to the agent, so the loser's
// reply is not its turn whether it read the ask before or after the winner's commit.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Ask } from "@loopback/shared/generated/types";
import { PROBLEMS } from "@loopback/shared/problems";
import { Replicas } from "../support/replicas.ts";
import { askWhen, newProject, openedAsk, readAsk, running } from "../support/scene.ts";
import { reviewInput } from "../mcp/mcp-scene.ts";

const ROUNDS = 20;
const humanTurns = (ask: Ask) => ask.thread.filter((e) => e.author === "human");

describe.each([2, 3])("%i replicas on one database", (count) => {
  let r: Replicas;
  let tokens: { ada: string; bob: string; agent: string };
  beforeAll(async () => {
    r = await Replicas.start(count);
    tokens = { ada: await r.token("ada"), bob: await r.token("bob"), agent: await r.token("ada", { agent: true }) };
  }, 60_000);
  afterAll(() => r.dispose());

  test(`${ROUNDS} times: one of two simultaneous replies on two replicas wins, the other is 409 ask.not_your_turn`, async () => {
    const agent = await r.agent(tokens.agent, count - 1);
    const winners = { ada: 0, bob: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      const [onA, onB] = [round % count, (round + 1) % count];
      const project = newProject();
      const call = running(agent.call("request_review", reviewInput(project)));
      const ask = await openedAsk(r.person(tokens.ada, onA), project, call);
      const replies = {
        ada: { outcome: "follow_up", question: `ada asks, round ${round}` },
        bob: { outcome: "follow_up", question: `bob asks, round ${round}` },
      };
      // Both requests are written before either is read: neither replica sees the other's commit first by design.
      const [ada, bob] = await Promise.all([r.person(tokens.ada, onA).reply(ask.id, replies.ada), r.person(tokens.bob, onB).reply(ask.id, replies.bob)]);
      const outcome = { ada: ada.status, bob: bob.status };
      expect([ada.status, bob.status].sort()).toEqual([200, 409]);
      const won = ada.status === 200 ? "ada" : "bob";
      const loser = (won === "ada" ? bob : ada) as unknown as { body: { code: string; message: string } };
      winners[won]++;
      expect({ outcome, code: loser.body.code }).toEqual({ outcome, code: "ask.not_your_turn" });
      expect(loser.body.message).toStartWith(PROBLEMS["ask.not_your_turn"].message);
      // The agent got the winner's question, and every replica's thread holds it alone.
      expect((await call).structuredContent).toEqual({ askId: ask.id, reply: replies[won] });
      for (let i = 0; i < count; i++) {
        const stored = await readAsk(r.person(tokens.ada, i), ask.id);
        expect(stored.status).toBe("awaiting_agent");
        expect(humanTurns(stored).map((e) => (e as { reply: unknown }).reply)).toEqual([replies[won]]);
      }
      // The agent answers and the person approves: the ask closes, and the next round starts clean.
      const answering = running(agent.call("answer_follow_up", { askId: ask.id, answer: "Because." }));
      await askWhen(r.person(tokens.ada, onA), ask.id, (a) => a.status === "awaiting_human", "the agent answered");
      const fin = await r.person(tokens.ada, onA).reply(ask.id, { outcome: "approved" });
      if (fin.status !== 200) console.log("REPLY409", round, onA, won, JSON.stringify(fin.body));
      expect(fin.status).toBe(200);
      await answering;
    }
    console.log(`simultaneous replies, ${count} replicas: ada won ${winners.ada}, bob won ${winners.bob} of ${ROUNDS}`);
    await agent.close();
  }, 120_000);
});
