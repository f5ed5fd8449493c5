import { afterAll, beforeAll, expect, test } from "bun:test";
import type { AskEvent } from "@loopback/shared/generated/types";
import { Agent, askWhen, newProject, openedAsk, questionInput, readAsk, running, scene, toolReply, type Scene, sessionHeaders } from "./mcp-scene.ts";

let s: Scene;
beforeAll(async () => {
  s = await scene({ LOOPBACK_PROGRESS_EVERY_S: "0.2" });
});
afterAll(() => s.dispose());

async function question(agent = s.agent, signal?: AbortSignal) {
  const project = newProject();
  const call = running(agent.call("ask_question", questionInput(project), { signal }));
  const ask = await openedAsk(s.person, project, call);
  return { ask, call };
}

const notWaiting = (askId: string) => askWhen(s.person, askId, (a) => !a.waiting, "nobody follows it");
const isWaiting = (askId: string) => askWhen(s.person, askId, (a) => a.waiting, "an agent follows it");

/** The reply was kept for whoever comes back: a later wait_for_reply gets it. */
async function replyIsKept(askId: string, agent = s.agent) {
  expect((await s.person.reply(askId, { outcome: "answered", selected: ["None"] })).status).toBe(200);
  expect(toolReply(await agent.call("wait_for_reply", { askId }))).toEqual({ askId, reply: { outcome: "answered", selected: ["None"] } });
}

test("an ask shows `waiting` while a call follows it, on the API and the socket, and not once the call returned", async () => {
  const socket = await s.person.socket();
  const { ask, call } = await question();
  const frame = (waiting: boolean) => (f: any) => f.type.startsWith("ask.") && f.ask.id === ask.id && f.ask.waiting === waiting;
  expect(((await socket.next(frame(true))) as AskEvent).ask.status).toBe("awaiting_human");
  expect((await readAsk(s.person, ask.id)).waiting).toBe(true);

  await s.person.reply(ask.id, { outcome: "answered", selected: ["Redis"] });
  expect(toolReply(await call).reply).toEqual({ outcome: "answered", selected: ["Redis"] });
  // The wait ends before the result is sent: by the time the agent has it, the ask says so.
  expect((await readAsk(s.person, ask.id)).waiting).toBe(false);
  expect(((await socket.next(frame(false))) as AskEvent).ask.status).toBe("closed");
  socket.close();
});

test("a call the agent cancels stops waiting, and the reply is kept for wait_for_reply", async () => {
  const abort = new AbortController();
  const { ask, call } = await question(s.agent, abort.signal);
  await isWaiting(ask.id);
  abort.abort("the user pressed Esc");
  await expect(call).rejects.toThrow();
  await notWaiting(ask.id);
  expect((await readAsk(s.person, ask.id)).status).toBe("awaiting_human");
  await replyIsKept(ask.id);
});

test("a call whose HTTP connection drops stops waiting, and the reply is kept for wait_for_reply", async () => {
  const project = newProject();
  const abort = new AbortController();
  const response = await fetch(`${s.relay.url}/mcp`, {
    method: "POST",
    headers: sessionHeaders(s.agent, s.agentToken),
    body: JSON.stringify({ jsonrpc: "2.0", id: "raw-1", method: "tools/call", params: { name: "ask_question", arguments: questionInput(project) } }),
    signal: abort.signal,
  });
  expect(response.headers.get("content-type")).toBe("text/event-stream");
  // Read as a client reads its stream, until the connection drops: a response nobody reads any more
  // may be collected, and its connection closed with it, before the test drops it (twice in loaded
  // runs on PostgreSQL, the call never seen waiting).
  const reader = response.body!.getReader();
  const reading = (async () => {
    try {
      while (!(await reader.read()).done);
    } catch {}
  })();
  const ask = await openedAsk(s.person, project);
  await isWaiting(ask.id);
  abort.abort();
  await reading;
  await notWaiting(ask.id);
  await replyIsKept(ask.id);
});

test("a call whose client closes its transport stops waiting", async () => {
  const agent = await Agent.connect(s.relay.url, s.agentToken);
  const { ask, call } = await question(agent);
  await isWaiting(ask.id);
  await agent.close();
  await expect(call).rejects.toThrow();
  await notWaiting(ask.id);
  await replyIsKept(ask.id);
});
