// A relay restart is invisible to the agents people run: a call waiting on the person when the relay
// stops returns the answer the person gives after the restart, as the result of that same call, with
// no new `initialize`. One test per client, all waiting on one relay restarted once for all of them.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { agentScene, askIdIn, askOpened, askWhen, carries, CLIENTS, question, sessionsOf, type AgentScene, type Client } from "./agents-scene.ts";

/**
 * Restarts the scene's relay once for every test that runs, when each of their calls waits: a test
 * joins as it starts, arrives when its call waits, and leaves if it fails before then.
 */
function restartWhenAllWait(s: () => AgentScene, how: string, stop: (s: AgentScene) => Promise<void>) {
  let joined = 0;
  let arrived = 0;
  let restarted: Promise<void> | undefined;
  const waiters: (() => void)[] = [];
  const check = () => {
    if (restarted || !joined || arrived < joined) return;
    restarted = (async () => {
      const scene = s();
      const stopped = Date.now();
      await stop(scene);
      const exited = Date.now();
      await scene.relay.start();
      console.log(`${how}: the relay exited in ${exited - stopped} ms and was back in ${Date.now() - stopped} ms`);
    })();
    for (const w of waiters.splice(0)) w();
  };
  return {
    join() {
      joined++;
      let done = false;
      return {
        arrive: () => {
          done = true;
          arrived++;
          check();
          return new Promise<void>((resolve) => (restarted ? resolve() : waiters.push(resolve))).then(() => restarted);
        },
        leave: () => {
          if (done) return;
          done = true;
          joined--;
          check();
        },
      };
    },
  };
}

/** A client whose `ask_question` call waits on the person, and how many sessions it opened so far. */
async function waitingCall(s: AgentScene, client: Client) {
  const q = question();
  const run = await s.launch(client, { script: [{ tool: "ask_question", args: q.args }, { text: "Redis it is." }] });
  const ask = await askOpened(s.person, q.project, run);
  await askWhen(s.person, ask.id, (a) => a.waiting, "the call follows it", 30_000);
  const sessions = await sessionsOf(s.relay, client);
  expect(sessions).toBeGreaterThan(0);
  return { run, ask, sessions };
}

/** The tests of one way to stop the relay, each client's call waiting across it. */
export function eachClientWaitsAcross(how: string, stop: (s: AgentScene) => Promise<void>): void {
  let scene: AgentScene;
  beforeAll(async () => {
    // A `retry` of 5 s: Claude Code resumes twice, `retry` apart, then gives the call up. The default
    // 3 s left a relay 6 s to come back, and one restarted beside three agents' CLIs in a full test
    // run took 5 s; the resume itself is the same at any `retry`.
    scene = await agentScene({ LOOPBACK_STREAM_RETRY_S: "5" });
  }, 30_000);
  afterAll(() => scene.dispose());
  const restart = restartWhenAllWait(() => scene, how, stop);
  for (const client of CLIENTS) {
    test.concurrent(`${client.name}: a call waiting when the relay stops (${how}) returns the answer given after the restart, with no new initialize`, async () => {
      const s = scene;
      const turn = restart.join();
      const { run, ask, sessions } = await waitingCall(s, client).catch((e) => {
        turn.leave();
        throw e;
      });
      await turn.arrive();
      expect((await s.person.reply(ask.id, { outcome: "answered", selected: ["Redis"] })).status).toBe(200);
      // The script calls `ask_question` once: a result with the answer came back on that call.
      const result = await run.results.next("ask_question", carries("Redis"), 20_000);
      expect(askIdIn(result.text)).toBe(ask.id);
      expect(run.results.all.filter((r) => r.tool.endsWith("ask_question"))).toHaveLength(1);
      expect(await sessionsOf(s.relay, client)).toBe(sessions);
      expect(await run.exited).toBe(0);
    }, 120_000);
  }
}
