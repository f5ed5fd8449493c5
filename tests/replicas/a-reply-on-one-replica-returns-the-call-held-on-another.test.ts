// A blocking call is held by the replica the agent reached; the person's reply lands on another.
// The reply is committed on one, and the replica holding the call hears of it and returns it,
// once. Replicas are addressed directly, not through HAProxy, so the test knows which is which.
import { describe, expect, test } from "bun:test";
import type { Agent } from "../support/agent.ts";
import { Replicas, withReplicas } from "../support/replicas.ts";
import { askWhen, newProject, openedAsk, readAsk, running } from "../support/scene.ts";
import { questionInput, toolReply } from "../mcp/mcp-scene.ts";

describe.each([2, 3])("%i replicas on one database", (count) => {
  let r: Replicas;
  let personToken: string;
  let agentToken: string;
  withReplicas(count, (started) => ({ r, personToken, agentToken } = started));

  /** Every ordered pair of different replicas: (where the call waits, where the reply lands). */
  const pairs = () => Array.from({ length: count }, (_, a) => Array.from({ length: count }, (_, b) => [a, b] as const)).flat().filter(([a, b]) => a !== b);

  test("a reply given on one replica returns the call waiting on each other replica, with that reply, once", async () => {
    const agents: Agent[] = [];
    for (let i = 0; i < count; i++) agents.push(await r.agent(agentToken, i));
    for (const [held, replied] of pairs()) {
      const project = newProject();
      const call = running(agents[held].call("ask_question", questionInput(project)));
      const onHolder = r.person(personToken, held);
      const ask = await openedAsk(onHolder, project, call);
      await askWhen(onHolder, ask.id, (a) => a.waiting, "the call follows it");

      const reply = { outcome: "answered", selected: ["Redis"], text: `held on ${held}, replied on ${replied}` };
      expect((await r.person(personToken, replied).reply(ask.id, reply)).status).toBe(200);
      expect(toolReply(await call)).toEqual({ askId: ask.id, reply } as never);
      // One human turn, as every replica reads it.
      for (let i = 0; i < count; i++) expect((await readAsk(r.person(personToken, i), ask.id)).thread.filter((e) => e.author === "human")).toHaveLength(1);
    }
    await Promise.all(agents.map((a) => a.close()));
  }, 60_000);

  test("calls waiting on every replica at once each return their own reply, given on another replica", async () => {
    const agents: Agent[] = [];
    for (let i = 0; i < count; i++) agents.push(await r.agent(agentToken, i));
    const calls = Array.from({ length: 10 * count }, (_, n) => {
      const project = newProject();
      const held = n % count;
      return { project, held, call: running(agents[held].call("ask_question", questionInput(project))) };
    });
    const person = r.person(personToken, 0);
    const asks = new Map<string, string>();
    for (const c of calls) asks.set(c.project, (await openedAsk(person, c.project, c.call)).id);
    // Asked of the replica holding it, which knows its own calls (that every replica knows it is another test's).
    for (const c of calls) await askWhen(r.person(personToken, c.held), asks.get(c.project)!, (a) => a.waiting, "the call follows it");
    await Promise.all(
      calls.map(async (c) => {
        const res = await r.person(personToken, (c.held + 1) % count).reply(asks.get(c.project)!, { outcome: "answered", selected: [], text: c.project });
        expect(res.status).toBe(200);
      }),
    );
    const results = await Promise.all(calls.map((c) => c.call));
    results.forEach((result, i) => expect(toolReply(result)).toEqual({ askId: asks.get(calls[i].project)!, reply: { outcome: "answered", selected: [], text: calls[i].project } } as never));
    await Promise.all(agents.map((a) => a.close()));
  }, 60_000);
});
