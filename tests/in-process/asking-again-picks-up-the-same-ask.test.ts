// An agent whose call was cut off asks again with the same input: it picks up the same ask, and any
// reply given meanwhile, instead of putting the question to the person twice. In-process on a clock
// the test moves, on both stores: the reclaim window is a query on the stored hand-over.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_RECLAIM_S } from "../../relay/src/config.ts";
import { Agent, structured } from "../support/agent.ts";
import { BOTH_STORES, inProcessScene, type InProcessScene } from "../support/in-process-scene.ts";
import { askWhen, newProject, openedAsk, running, until } from "../support/scene.ts";

describe.each(BOTH_STORES)("on %s", (store) => {
  let s: InProcessScene;
  /** The asks of a project the person's snapshot holds, open or recently closed. */
  const asksIn = async (project: string) => {
    const { open, recent } = await s.person.snapshot();
    return [...open, ...recent].filter((a) => a.project === project);
  };
  beforeAll(async () => {
    s = await inProcessScene({ store, env: { LOOPBACK_WAIT_BUDGET_S: "0" }, client: { name: "test-agent", version: "1.0.0" } });
  }, 30_000);
  afterAll(() => s.dispose());

  const question = (project: string) => ({ question: "Ship it on Friday?", project, options: [{ label: "Yes" }, { label: "No" }] });

  test("a call cut off mid-wait, asked again after the person replied, returns that reply at once and opens nothing new", async () => {
    const project = newProject();
    const first = await Agent.connect(s.url, s.agentToken, "claude-code", "2.1.0");
    const call = running(first.call("ask_question", question(project)).catch((e) => e));
    const ask = await openedAsk(s.person, project, call);
    await first.close(); // the connection dies with the call
    await askWhen(s.person, ask.id, (a) => !a.waiting, "the cut-off call stops waiting");
    expect((await s.person.reply(ask.id, { outcome: "answered", selected: ["No"] })).status).toBe(200);

    const again = await Agent.connect(s.url, s.agentToken, "claude-code", "2.1.0");
    expect(structured(await again.call("ask_question", question(project)))).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: ["No"] } });
    expect(await asksIn(project)).toHaveLength(1);
    await again.close();
  });

  test("asking the same while the person still has it follows the same ask, and both calls get the one reply", async () => {
    const project = newProject();
    const older = running(s.agent.call("ask_question", question(project)));
    const ask = await openedAsk(s.person, project, older);
    const other = await Agent.connect(s.url, s.agentToken, "another-agent", "1.0");
    const newer = running(other.call("ask_question", question(project)));
    await until(() => s.relay.waiting.byClient.get("test-agent") === 2, "the newer call waits too");
    expect(older.settled).toBe(false);
    expect((await s.person.reply(ask.id, { outcome: "answered", selected: ["Yes"] })).status).toBe(200);
    const reply = { askId: ask.id, reply: { outcome: "answered", selected: ["Yes"] } };
    expect(structured(await older)).toEqual(reply);
    expect(structured(await newer)).toEqual(reply);
    expect(await asksIn(project)).toHaveLength(1);
    await other.close();
  });

  test("an agent that restarted and asks again with the same input gets the reply it was handed but never read", async () => {
    const project = newProject();
    const first = running(s.agent.call("ask_question", question(project)));
    const ask = await openedAsk(s.person, project, first);
    await s.person.reply(ask.id, { outcome: "answered", selected: ["Yes"] });
    expect(structured(await first).reply).toEqual({ outcome: "answered", selected: ["Yes"] });

    // A new process of the agent, a new session: the result of its first call died with the old one.
    const restarted = await Agent.connect(s.url, s.agentToken, "claude-code", "2.1.0");
    expect(structured(await restarted.call("ask_question", question(project)))).toEqual({ askId: ask.id, reply: { outcome: "answered", selected: ["Yes"] } });
    expect(await asksIn(project)).toHaveLength(1);
    await restarted.close();
  });

  test("once the reclaim window after a handed-over reply has passed, the same input opens a new ask: the person is asked again", async () => {
    const project = newProject();
    const first = running(s.agent.call("ask_question", question(project)));
    const ask = await openedAsk(s.person, project, first);
    await s.person.reply(ask.id, { outcome: "answered", selected: ["Yes"] });
    expect(structured(await first).reply).toEqual({ outcome: "answered", selected: ["Yes"] });
    await s.clock.advance(DEFAULT_RECLAIM_S * 1000 + 100);

    const second = running(s.agent.call("ask_question", question(project)));
    const reopenedId = await until(async () => (await s.person.snapshot()).open.find((a) => a.project === project && a.id !== ask.id)?.id, "a new ask opens");
    const reopened = await askWhen(s.person, reopenedId, (a) => a.status === "awaiting_human", "the new ask is the person's move");
    expect(reopened.id).not.toBe(ask.id);
    await s.person.reply(reopened.id, { outcome: "dismissed" });
    expect(structured(await second)).toEqual({ askId: reopened.id, reply: { outcome: "dismissed" } });
  });
});
