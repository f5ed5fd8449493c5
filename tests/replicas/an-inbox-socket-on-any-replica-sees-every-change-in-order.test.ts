// An inbox's event socket is held by one replica; the asks of its space change on others. Every
// socket, on every replica, sees each ask opened and every change to it, in the order the changes
// were made: the agent on one replica, the person on another, the socket on a third.
import { describe, expect, test } from "bun:test";
import type { Ask, ServerEvent } from "@loopback/shared/generated/types";
import { structured } from "../support/agent.ts";
import type { EventSocket } from "../support/person.ts";
import { Replicas, withReplicas } from "../support/replicas.ts";
import { askWhen, newProject, openedAsk, running, until } from "../support/scene.ts";
import { reviewInput } from "../mcp/mcp-scene.ts";

type AskFrame = Extract<ServerEvent, { ask: Ask }>;
const about = (askId: string) => (f: ServerEvent) => "ask" in f && f.ask.id === askId;

/** What a frame says of its ask's progress: waiting-only updates repeat the state they follow. */
const state = (f: AskFrame) => `${f.type === "ask.opened" ? "opened" : "updated"}:${f.ask.status}:${f.ask.thread.length}`;

/** The distinct states in the order the socket saw them (a repeat right after the same state dropped). */
function progress(frames: AskFrame[]): string[] {
  const out: string[] = [];
  for (const f of frames) if (out.at(-1)?.replace(/^opened/, "updated") !== state(f).replace(/^opened/, "updated")) out.push(state(f));
  return out;
}

describe.each([2, 3])("%i replicas on one database", (count) => {
  let r: Replicas;
  let personToken: string;
  let agentToken: string;
  withReplicas(count, (started) => ({ r, personToken, agentToken } = started));

  test("a socket on one replica sees an ask opened through another, with the waiting call", async () => {
    const socket = await r.person(personToken, 1).socket();
    await socket.next((f) => f.type === "snapshot");
    const agent = await r.agent(agentToken, 0);
    const project = newProject();
    const call = running(agent.call("request_review", reviewInput(project)));
    const opened = (await socket.next((f) => f.type === "ask.opened" && f.ask.project === project)) as AskFrame;
    expect(opened.ask.status).toBe("awaiting_human");
    const ask = await openedAsk(r.person(personToken, 0), project, call);
    expect(opened.ask.id).toBe(ask.id);
    expect(opened.ask.thread).toEqual(ask.thread);
    // The reply, given on the socket's own replica, closes the ask there too.
    expect((await r.person(personToken, 1).reply(ask.id, { outcome: "approved" })).status).toBe(200);
    await socket.next((f) => about(ask.id)(f) && (f as AskFrame).ask.status === "closed");
    await call;
    socket.close();
    await agent.close();
  }, 30_000);

  test("an ask whose call waits on one replica says waiting on every replica: read, in the snapshot, and on the socket", async () => {
    const sockets = await Promise.all(Array.from({ length: count }, (_, i) => r.person(personToken, i).socket()));
    for (const socket of sockets) await socket.next((f) => f.type === "snapshot");
    const agent = await r.agent(agentToken, 0);
    const project = newProject();
    const call = running(agent.call("request_review", reviewInput(project)));
    const ask = await openedAsk(r.person(personToken, 0), project, call);
    for (let i = 0; i < count; i++) {
      const person = r.person(personToken, i);
      await askWhen(person, ask.id, (a) => a.waiting, `replica ${i} says the call on replica 0 follows the ask`);
      expect({ replica: i, waiting: (await person.snapshot()).open.find((a) => a.id === ask.id)?.waiting }).toEqual({ replica: i, waiting: true });
      await until(() => sockets[i].frames.some((f) => about(ask.id)(f) && (f as AskFrame).ask.waiting), `replica ${i}'s socket shows the ask waiting`);
    }
    // The agent gives up its call: every replica says nobody waits any more.
    await agent.close();
    for (let i = 0; i < count; i++) await askWhen(r.person(personToken, i), ask.id, (a) => !a.waiting, `replica ${i} says nobody follows the ask`);
    expect((await r.person(personToken, 1).reply(ask.id, { outcome: "dismissed" })).status).toBe(200);
    for (const socket of sockets) socket.close();
  }, 30_000);

  test("sockets on every replica see every change of asks worked on all replicas, in order per ask", async () => {
    const sockets: EventSocket[] = [];
    for (let i = 0; i < count; i++) {
      const socket = await r.person(personToken, i).socket();
      await socket.next((f) => f.type === "snapshot");
      sockets.push(socket);
    }
    const agents = await Promise.all(Array.from({ length: count }, (_, i) => r.agent(agentToken, i)));
    const ASKS = 12;
    // Each ask goes back and forth on three replicas: opened on one, followed up on the next, answered
    // by the agent on a third, approved where it was opened. All asks at once.
    const worked = await Promise.all(
      Array.from({ length: ASKS }, async (_, n) => {
        const [opener, asker, answerer] = [n % count, (n + 1) % count, (n + 2) % count];
        const project = newProject();
        const call = running(agents[opener].call("request_review", reviewInput(project)));
        const ask = await openedAsk(r.person(personToken, opener), project, call);
        expect((await r.person(personToken, asker).reply(ask.id, { outcome: "follow_up", question: `Why ${n}?` })).status).toBe(200);
        expect(structured(await call).reply).toEqual({ outcome: "follow_up", question: `Why ${n}?` });
        const answering = running(agents[answerer].call("answer_follow_up", { askId: ask.id, answer: `Because ${n}.` }));
        await askWhen(r.person(personToken, opener), ask.id, (a) => a.status === "awaiting_human", "the agent answered");
        expect((await r.person(personToken, opener).reply(ask.id, { outcome: "approved", note: `ok ${n}` })).status).toBe(200);
        expect(structured(await answering).reply).toEqual({ outcome: "approved", note: `ok ${n}` });
        return { id: ask.id, turns: ask.thread.length };
      }),
    );
    for (const { id, turns } of worked) {
      const expected = [`opened:awaiting_human:${turns}`, `updated:awaiting_agent:${turns + 1}`, `updated:awaiting_human:${turns + 2}`, `updated:closed:${turns + 3}`];
      for (const [i, socket] of sockets.entries()) {
        // Every change reached this socket: the last state is there, so nothing before it is still on its way.
        await until(() => socket.frames.some((f) => about(id)(f) && (f as AskFrame).ask.status === "closed"), `replica ${i}'s socket saw ${id} closed`, 10_000);
        const frames = socket.frames.filter(about(id)) as AskFrame[];
        // A snapshot after the first (taken by `next` above) is the space sent afresh: the replica
        // heard it may have missed notices. None is expected here, and one would say why a change is missing.
        const snapshots = socket.frames.filter((f) => f.type === "snapshot").length;
        // A change whose read failed is not shown (the feed logs it): none is expected either.
        const unread = r.relays[i].log.split("\n").filter((line) => line.includes(`could not read ask ${id}`));
        expect({ replica: i, snapshots, unread, progress: progress(frames) }).toEqual({ replica: i, snapshots: 0, unread: [], progress: expected });
      }
    }
    for (const socket of sockets) {
      expect(socket.closed).toBe(false);
      socket.close();
    }
    await Promise.all(agents.map((a) => a.close()));
  }, 90_000);
});
