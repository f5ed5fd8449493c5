// `bun tests/bench/agents-restart.ts [--rounds N]`: the real Claude Code, Codex and Gemini CLI each
// wait on the person while the relay restarts (SIGTERM, then a `kill -9` brought back at once on the
// same port and data); the person answers as soon as the relay is back. Times, per client, from the
// stop to the answer reaching the agent's model, beside the relay's own stop → listening time. Apart
// from bench.ts (and its smoke run): each agent takes seconds to start. Writes results/agents-restart.json.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { claudeCode } from "../support/agents/claude-code.ts";
import { codex } from "../support/agents/codex.ts";
import { geminiCli } from "../support/agents/gemini-cli.ts";
import type { AgentRun } from "../support/agents/agent-process.ts";
import type { ModelTurn } from "../support/agents/model-script.ts";
import { Person } from "../support/person.ts";
import { RelayProcess, ROOT } from "../support/relay-process.ts";
import { spread, type Row } from "./stats.ts";

const flag = process.argv.indexOf("--rounds");
const ROUNDS = flag > 0 ? Number(process.argv[flag + 1]) : 10;

type Launch = (relayUrl: string, token: string, script: ModelTurn[]) => Promise<AgentRun>;
const CLIENTS: [string, Launch][] = [
  ["Claude Code", (relayUrl, token, script) => claudeCode({ relayUrl, token, script })],
  ["Codex", (relayUrl, token, script) => codex({ relayUrl, token, script })],
  ["Gemini CLI", (relayUrl, token, script) => geminiCli({ relayUrl, token, script })],
];

/** One agent asking a question per round: each question after the first waits for the round that releases it. */
interface Lane {
  client: string;
  run: AgentRun;
  projects: string[];
  release: (() => void)[];
  samples: number[];
}

async function lane(client: string, launch: Launch, relay: RelayProcess, token: string, how: string): Promise<Lane> {
  const projects = Array.from({ length: ROUNDS }, (_, i) => `bench-${how.replace(/\W/g, "")}-${client.replace(/\W/g, "")}-${i}`);
  const release: (() => void)[] = [];
  const script: ModelTurn[] = projects.map((project, i) => ({
    tool: "ask_question",
    args: { question: "Which database should the cache use?", options: [{ label: "SQLite" }, { label: "Redis" }], project },
    hold: i === 0 ? undefined : new Promise<void>((r) => (release[i] = r)),
  }));
  script.push({ text: "Done." });
  return { client, run: await launch(relay.url, token, script), projects, release, samples: [] };
}

async function until<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await Bun.sleep(20);
  }
}

async function measure(how: "SIGTERM" | "kill -9"): Promise<Row[]> {
  const relay = await new RelayProcess().start();
  const person = new Person(relay.url, await relay.token("bench"));
  const token = await relay.token("bench", { agent: true });
  const lanes = await Promise.all(CLIENTS.map(([client, launch]) => lane(client, launch, relay, token, how)));
  const restarts: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const l of lanes) l.release[round]?.();
      const asks = await Promise.all(
        lanes.map((l) =>
          until(async () => (await person.snapshot()).open.find((a) => a.project === l.projects[round] && a.waiting), `${l.client} waits in round ${round}`),
        ),
      );
      const stopped = Date.now();
      await (how === "SIGTERM" ? relay.stop() : relay.kill9());
      await relay.start();
      restarts.push(Date.now() - stopped);
      await Promise.all(
        lanes.map(async (l, i) => {
          const res = await person.reply(asks[i].id, { outcome: "answered", selected: ["Redis"] });
          if (res.status !== 200) throw new Error(`reply refused: ${res.status}`);
          const got = await l.run.results.next("ask_question", (t) => t.includes(asks[i].id) && t.includes("Redis"), 60_000);
          l.samples.push(got.at - stopped);
        }),
      );
    }
  } finally {
    await Promise.all(lanes.map((l) => l.run.kill()));
    await relay.dispose();
  }
  return [
    { figure: `relay ${how} → listening again on the same port (floor)`, ...spread(restarts), goal: "—" },
    ...lanes.map((l) => ({ figure: `${l.client}: relay ${how} → the answer reaches its model`, ...spread(l.samples), goal: "every call returns its answer" })),
  ];
}

const rows = [...(await measure("SIGTERM")), ...(await measure("kill -9"))];
const machine = `${cpus().length} × ${cpus()[0]?.model.trim()}, ${Math.round(totalmem() / 1024 ** 3)} GiB, Bun ${Bun.version}`;
const ms = (n?: number) => (n === undefined ? "" : String(Math.round(n)));
const table = [
  `| figure | p50 ms | p99 ms | max ms | goal |`,
  `|---|---|---|---|---|`,
  ...rows.map((r) => `| ${r.figure} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(r.max)} | ${r.goal} |`),
].join("\n");
console.log(`\nReal agents across relay restarts, ${ROUNDS} rounds each — ${new Date().toISOString()}\n${machine}\n\n${table}\n`);
const out = join(ROOT, "tests/bench/results");
mkdirSync(out, { recursive: true });
writeFileSync(join(out, "agents-restart.json"), JSON.stringify({ at: new Date().toISOString(), machine, rounds: ROUNDS, rows }, null, 2) + "\n");
process.exit(0);
