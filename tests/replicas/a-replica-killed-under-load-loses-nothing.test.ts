// `kill -9` of one replica while agents wait on every replica, through HAProxy as in production.
// The agents use the official SDK client with its own reconnection: a call whose stream died with
// its replica comes back through the balancer (Last-Event-ID, after the stream's `retry`) to a
// replica still alive. The person answers every ask through the balancer while the replica dies;
// every call returns its own answer, no ask is opened twice, and every reply acknowledged with 200
// is in its thread. The killed replica comes back and serves the same asks.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Ask } from "@loopback/shared/generated/types";
import type { Agent } from "../support/agent.ts";
import type { Person } from "../support/person.ts";
import { Replicas } from "../support/replicas.ts";
import { newProject, running, until } from "../support/scene.ts";
import { questionInput, toolReply } from "../mcp/mcp-scene.ts";

const AGENTS = 100;
const VICTIM = 1;

/** Every ask the person's space holds, open and closed, by id; fails if paging shows one twice. */
async function everyAsk(person: Person): Promise<Map<string, Ask>> {
  const all = new Map<string, Ask>();
  for (const a of (await person.snapshot()).open) all.set(a.id, a);
  for (let before: string | undefined; ; ) {
    const page = await person.api("GET", `/asks?limit=100${before ? `&before=${encodeURIComponent(before)}` : ""}`);
    for (const a of page.body.items as Ask[]) {
      expect(all.has(a.id)).toBe(false);
      all.set(a.id, a);
    }
    if (!page.body.nextBefore) return all;
    before = page.body.nextBefore;
  }
}

describe.each([2, 3])("%i replicas behind HAProxy", (count) => {
  let r: Replicas;
  let personToken: string;
  let agentToken: string;
  beforeAll(async () => {
    // A short `retry`: a client whose stream died comes back a second later, to a replica still alive.
    r = await Replicas.start(count, { env: { LOOPBACK_STREAM_RETRY_S: "1" } });
    personToken = await r.token("ada");
    agentToken = await r.token("ada", { agent: true });
  }, 60_000);
  afterAll(() => r.dispose());

  test(`${AGENTS} agents waiting across the replicas: kill -9 of one loses no call, no reply, and opens no ask twice`, async () => {
    const agents: Agent[] = [];
    for (let i = 0; i < AGENTS; i += 20) agents.push(...(await Promise.all(Array.from({ length: 20 }, (_, j) => r.agent(agentToken, "balancer", `load-${i + j}`)))));
    const calls = agents.map((agent) => {
      const project = newProject();
      const c = { project, resumable: false, call: undefined as unknown as ReturnType<typeof running<CallToolResult>> };
      // Told when the call's stream has begun (its first event's id): from then on the SDK can resume it.
      const options = { timeout: 10 * 60_000, resetTimeoutOnProgress: true, onprogress: () => {}, onresumptiontoken: () => void (c.resumable = true) };
      c.call = running(agent.client.callTool({ name: "ask_question", arguments: questionInput(project) }, undefined, options) as Promise<CallToolResult>);
      return c;
    });
    const asks = await until(
      async () => {
        // Each replica is asked: the one holding a call says it waits, whatever the others know.
        const open = await Promise.all(Array.from({ length: count }, async (_, i) => (await r.person(personToken, i).snapshot()).open.filter((a) => a.waiting)));
        const byProject = new Map(open.flat().map((a) => [a.project!, a.id]));
        return calls.every((c) => c.resumable && byProject.has(c.project)) && byProject;
      },
      `all ${AGENTS} asks are open, their calls following and their streams begun`,
      30_000,
    );
    // Every replica holds some of the waiting calls (HAProxy's open connections to it).
    const held = await r.balancer.sessions();
    for (let i = 0; i < count; i++) expect({ replica: r.nameOf(i), holds: held[r.nameOf(i)] > 0 }).toEqual({ replica: r.nameOf(i), holds: true });

    // The person answers every ask through the balancer, a few at a time, while the victim dies.
    const person = r.person(personToken, "balancer");
    const acknowledged = new Map<string, unknown>();
    const unacknowledged: string[] = [];
    const replyFor = (project: string) => ({ outcome: "answered", selected: [], text: `answer for ${project}` });
    const queue = [...calls];
    const answering = Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let c = queue.shift(); c; c = queue.shift()) {
          const askId = asks.get(c.project)!;
          const res = await person.reply(askId, replyFor(c.project)).catch(() => undefined);
          if (res?.status === 200) acknowledged.set(askId, res.body);
          else unacknowledged.push(c.project);
        }
      }),
    );
    await until(() => acknowledged.size >= AGENTS / 4, "a quarter of the replies are acknowledged");
    const outOfRotationMs = await r.kill9(VICTIM);
    await answering;
    console.log(`${count} replicas: HAProxy connections open per replica ${JSON.stringify(held)}; the killed one (${r.nameOf(VICTIM)}) was out of HAProxy's rotation ${Math.round(outOfRotationMs)} ms after it died; ${unacknowledged.length} replies sent to it unacknowledged`);

    // A reply the balancer could not acknowledge (its replica died handling it) is sent again: it
    // was either never committed (200 now) or committed (409 ask.closed, and it is in the thread).
    for (const project of unacknowledged) {
      const again = await person.reply(asks.get(project)!, replyFor(project));
      expect([200, 409]).toContain(again.status);
      if (again.status === 409) expect((again.body as unknown as { code: string }).code).toBe("ask.closed");
    }

    // Every call returns its own answer, including those the killed replica held.
    await until(() => calls.every((c) => c.call.settled), "every call returned", 30_000).catch((e) => {
      throw new Error(`${(e as Error).message}: ${calls.filter((c) => !c.call.settled).length} of ${AGENTS} had not`);
    });
    const results = await Promise.all(calls.map((c) => c.call));
    results.forEach((result, i) => expect(toolReply(result)).toEqual({ askId: asks.get(calls[i].project)!, reply: replyFor(calls[i].project) } as never));

    // One ask per call, each closed with its one reply; every acknowledged reply is in its thread.
    const stored = await everyAsk(r.person(personToken, 0));
    const projects = new Set(calls.map((c) => c.project));
    const ours = [...stored.values()].filter((a) => projects.has(a.project ?? ""));
    expect(ours).toHaveLength(AGENTS);
    for (const ask of ours) {
      expect(ask.status).toBe("closed");
      expect(ask.thread.filter((e) => e.author === "human").map((e) => (e as { reply: unknown }).reply)).toEqual([replyFor(ask.project!)]);
    }
    for (const askId of acknowledged.keys()) expect(stored.get(askId)?.status).toBe("closed");

    // The killed replica comes back into rotation and reads the same asks.
    await r.restart(VICTIM);
    const back = await everyAsk(r.person(personToken, VICTIM));
    for (const ask of ours) expect(back.get(ask.id)?.thread).toEqual(ask.thread);
    await Promise.all(agents.map((a) => a.close()));
  }, 180_000);
});
