// `kill -9` of the relay in the middle of load, then a restart: every reply acknowledged with 200 is
// stored and reaches the agent that follows its ask; no ask is lost or duplicated; tasks resume.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { CallToolResultSchema, CreateTaskResultSchema, GetTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Ask } from "@loopback/shared/generated/types";
import { Agent, structured } from "../support/agent.ts";
import { Person } from "../support/person.ts";
import { scene, type BareScene } from "../support/scene.ts";

let s: BareScene;
beforeAll(async () => {
  s = await scene({ env: { LOOPBACK_WAIT_BUDGET_S: "0" }, client: false });
});
afterAll(() => s.dispose());

test("a relay killed with SIGKILL mid-load loses no acknowledged reply, no ask, and no task", async () => {
  const AGENTS = 24;
  const agents = await Promise.all(Array.from({ length: AGENTS }, (_, i) => Agent.connect(s.relay.url, s.agentToken, `load-${i}`, "1.0")));
  const socket = await s.person.socket(false);
  await socket.next((f) => f.type === "snapshot");

  // Tasks opened before the crash, answered after it.
  const tasks: string[] = [];
  for (let i = 0; i < 3; i++) {
    const created = await agents[0].client.request(
      { method: "tools/call", params: { name: "ask_question", arguments: { question: `Task ${i}?`, project: "crash-tasks" }, task: { ttl: 600_000 } } },
      CreateTaskResultSchema,
    );
    tasks.push(created.task.taskId);
  }

  const seenOpened = new Set<string>();
  const acknowledged = new Map<string, unknown>();
  let stop = false;

  // Agents keep asking; each call may die with the relay.
  const asking = agents.map(async (agent, i) => {
    for (let n = 0; !stop; n++) {
      try {
        await agent.call("ask_question", { question: `Load ${i}.${n}?`, project: "crash-load" });
      } catch {
        return;
      }
    }
  });
  // The person answers each new ask as it appears, and keeps what was acknowledged with 200.
  const answering = (async () => {
    while (!stop && !socket.closed) {
      const frame = (await socket.next((f) => f.type === "ask.opened", 2_000).catch(() => undefined)) as any;
      if (!frame) continue;
      const ask: Ask = frame.ask;
      if (ask.project !== "crash-load") continue;
      seenOpened.add(ask.id);
      const reply = { outcome: "answered", selected: [], text: `for ${ask.id}` };
      void fetch(`${s.relay.url}/api/v1/asks/${ask.id}/reply`, {
        method: "POST",
        headers: { Authorization: `Bearer ${s.person.token}`, "Content-Type": "application/json" },
        body: JSON.stringify(reply),
      })
        .then((res) => {
          if (res.status === 200) acknowledged.set(ask.id, reply);
        })
        .catch(() => {});
    }
  })();

  while (acknowledged.size < 150) await Bun.sleep(20);
  await s.relay.kill9();
  stop = true;
  socket.close();
  await answering;
  // The SDK client would keep retrying a stream whose server died; closing it ends the calls.
  await Promise.all(agents.map((a) => a.close().catch(() => {})));
  await Promise.race([Promise.all(asking), Bun.sleep(2_000)]);

  await s.relay.start();
  const after = new Person(s.relay.url, s.person.token);
  const stored = new Map<string, Ask>();
  const snapshot = await after.snapshot();
  for (const a of snapshot.open) stored.set(a.id, a);
  for (let before: string | undefined; ; ) {
    const page = await after.api("GET", `/asks?limit=100${before ? `&before=${encodeURIComponent(before)}` : ""}`);
    for (const a of page.body.items) {
      expect(stored.has(a.id)).toBe(false); // paging and the snapshot never show an ask twice
      stored.set(a.id, a);
    }
    if (!page.body.nextBefore) break;
    before = page.body.nextBefore;
  }

  // Every ask the inbox saw opened is stored; every acknowledged reply is in its thread.
  for (const id of seenOpened) expect(stored.has(id)).toBe(true);
  for (const [id, reply] of acknowledged) {
    const ask = stored.get(id)!;
    expect(ask.status).toBe("closed");
    expect(ask.thread.filter((e) => e.author === "human").map((e) => (e as any).reply)).toEqual([reply]);
  }
  // After a restart nobody is waiting until an agent follows again.
  expect(snapshot.open.every((a) => !a.waiting)).toBe(true);

  // The agents come back: each acknowledged reply reaches whoever follows its ask.
  const back = await Agent.connect(s.relay.url, s.agentToken, "after-crash", "1.0");
  const sample = [...acknowledged.keys()].slice(0, 40);
  const results = await Promise.all(sample.map((askId) => back.call("wait_for_reply", { askId }).then(structured)));
  results.forEach((r, i) => expect(r).toEqual({ askId: sample[i], reply: acknowledged.get(sample[i]) }));

  // Tasks opened before the crash complete once the person answers after it.
  for (const taskId of tasks) {
    const task = await back.client.request({ method: "tasks/get", params: { taskId } }, GetTaskResultSchema);
    expect(task.status).toBe("working");
  }
  const taskAsks = (await after.snapshot()).open.filter((a) => a.project === "crash-tasks");
  expect(taskAsks).toHaveLength(3);
  for (const ask of taskAsks) expect((await after.reply(ask.id, { outcome: "dismissed" })).status).toBe(200);
  for (const taskId of tasks) {
    const result = await back.client.request({ method: "tasks/result", params: { taskId } }, CallToolResultSchema, { timeout: 30_000 });
    expect((result.structuredContent as any).reply).toEqual({ outcome: "dismissed" });
  }
  await back.close();
}, 120_000);
