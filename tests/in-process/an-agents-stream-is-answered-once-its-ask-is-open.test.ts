// A blocking call's stream is answered (its headers, its first event) only once the call's ask is
// stored and shown to the person: the inbox's frame leaves before the stream's headers, not behind
// them, and an agent whose ask could not be stored yet has not been told anything. On PostgreSQL,
// where the test holds the ask's insert back with a lock and watches the call wait behind it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import postgres from "postgres";
import { newProject, running, until } from "../mcp/mcp-scene.ts";
import { RawClient } from "../mcp/raw-client.ts";
import { events } from "../support/sse-events.ts";
import { inProcessScene, type InProcessScene } from "../support/in-process-scene.ts";

let s: InProcessScene;
beforeAll(async () => {
  s = await inProcessScene({ store: "postgres", client: false });
}, 30_000);
afterAll(() => s.dispose());

test("an agent's stream is answered once its ask is stored and shown, never before", async () => {
  const agent = await RawClient.as("claude-code", s.url, s.agentToken).connect();
  const holder = postgres(s.relay.config.databaseUrl!, { max: 1, onnotice: () => {} });
  const watcher = postgres(s.relay.config.databaseUrl!, { max: 1, onnotice: () => {} });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  try {
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holding = holder.begin(async (tx) => {
      await tx`lock table asks in exclusive mode`;
      locked();
      await released;
    });
    await isLocked;
    const project = newProject();
    const call = running(agent.call(1, project));
    // The relay's write of the ask waits on the lock...
    await until(async () => (await watcher`select 1 from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`).length > 0, "the ask's insert waits on the lock");
    // ...and its stream has not been answered: a request made after the call has its answer first.
    await (await fetch(`${s.url}/healthz`)).arrayBuffer();
    expect(call.settled).toBe(false);
    expect((await s.person.snapshot()).open.some((a) => a.project === project)).toBe(false);

    release();
    await holding;
    const response = await call;
    expect(response.status).toBe(200);
    // By the time the agent hears from its call, the person has its ask.
    const ask = (await s.person.snapshot()).open.find((a) => a.project === project);
    expect(ask).toBeDefined();
    const answered = s.person.reply(ask!.id, { outcome: "answered", selected: ["SQLite"] });
    let result: unknown;
    for await (const event of events(response.body!)) if (event.id?.endsWith(":done")) result = JSON.parse(event.data).result.structuredContent;
    await answered;
    expect(result).toEqual({ askId: ask!.id, reply: { outcome: "answered", selected: ["SQLite"] } });
  } finally {
    release();
    await Promise.all([holder.end(), watcher.end()]);
  }
});
