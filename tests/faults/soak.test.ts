// Many agents and people asking and replying for a while: no errors, and the relay's memory flat.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Agent, structured } from "../support/agent.ts";
import { Person } from "../support/person.ts";
import { RelayProcess } from "../support/relay-process.ts";

const SECONDS = Number(process.env.LOOPBACK_SOAK_S ?? 12);
const AGENTS = 16;

let relay: RelayProcess;
let people: Person[];
let agentToken: string;

beforeAll(async () => {
  relay = await new RelayProcess({ env: { LOOPBACK_WAIT_BUDGET_S: "0" } }).start();
  people = [new Person(relay.url, await relay.token("soak-a")), new Person(relay.url, await relay.token("soak-b"))];
  agentToken = await relay.token("soak-a", { agent: true });
});
afterAll(() => relay.dispose());

test(`agents and people asking and replying for ${SECONDS} s meet no error and leave memory flat`, async () => {
  const errors: string[] = [];
  let cycles = 0;
  let stop = false;
  // Two people share the space: each answers what the other has not yet.
  const sockets = await Promise.all(people.map((p) => p.socket(false)));
  const answerers = sockets.map(async (socket, i) => {
    while (!stop && !socket.closed) {
      const f = (await socket.next((x) => x.type === "ask.opened", 1_000).catch(() => undefined)) as any;
      if (!f) continue;
      const ask = f.ask;
      const reply =
        ask.kind === "question" ? { outcome: "answered", selected: [], text: "ok" } : ask.kind === "review" ? { outcome: "approved" } : { outcome: "responded", points: [{ point: "1", resolved: true }] };
      const res = await people[i].api("POST", `/asks/${ask.id}/reply`, { body: reply });
      // Both people race for every ask: one wins, the other is told it is closed.
      if (res.status !== 200 && !(res.status === 409 && res.body.code === "ask.closed")) errors.push(`reply ${res.status} ${res.body.code}`);
    }
  });
  const agents = await Promise.all(Array.from({ length: AGENTS }, (_, i) => Agent.connect(relay.url, agentToken, `soak-${i}`, "1.0")));
  const calls = [
    { name: "ask_question", args: { question: "Soak?", project: "soak", options: [{ label: "A" }, { label: "B" }] } },
    { name: "request_review", args: { title: "Soak review", project: "soak", content: [{ type: "diff", diff: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n" }] } },
    { name: "send_briefing", args: { title: "Soak briefing", project: "soak", sections: [{ points: [{ title: "Only point" }] }] } },
  ];
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(relay.rss()), 500);
  const deadline = Date.now() + SECONDS * 1000;
  await Promise.all(
    agents.map(async (agent, i) => {
      for (let n = 0; Date.now() < deadline; n++) {
        const { name, args } = calls[(i + n) % calls.length];
        try {
          // Distinct per call: the same input from the same person would pick up the same ask.
          const result = structured(await agent.call(name, { ...args, project: `soak-${i}-${n}` }));
          if (!result.reply) throw new Error(`no reply: ${JSON.stringify(result)}`);
          cycles++;
        } catch (e) {
          errors.push(String(e));
        }
      }
    }),
  );
  clearInterval(sampler);
  stop = true;
  await Promise.all(answerers);
  for (const s of sockets) s.close();
  await Promise.all(agents.map((a) => a.close()));

  console.log(`soak: ${cycles} complete cycles in ${SECONDS} s; RSS ${samples.map((b) => Math.round(b / 2 ** 20)).join(" ")} MB`);
  expect(errors).toEqual([]);
  expect(cycles).toBeGreaterThan(SECONDS * 10);
  // Flat: the second half never grows past the first half's peak by more than a margin for GC timing.
  const half = Math.floor(samples.length / 2);
  const firstPeak = Math.max(...samples.slice(0, half));
  const secondPeak = Math.max(...samples.slice(half));
  expect(secondPeak).toBeLessThan(firstPeak * 1.25 + 16 * 2 ** 20);
}, (SECONDS + 60) * 1000);
