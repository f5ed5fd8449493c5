// Several relays on one PostgreSQL database, measured from the outside as bench.ts measures one:
// the reply → agent path with the person on the agent's replica and on another (the reply then
// reaches the waiting call through NOTIFY), beside one durable PostgreSQL commit sampled between the
// same rounds; complete cycles per second with 1, 2 and 3 replicas; many agents waiting spread over
// two replicas. `benchReplicas` is what bench.ts calls; it returns the rows it measured.
import { spread, type Row } from "./stats.ts";
import postgres from "postgres";
import { Agent, structured } from "../support/agent.ts";
import { Person } from "../support/person.ts";
import { freshDatabase, RelayProcess } from "../support/relay-process.ts";
import { stage } from "./stages.ts";


const now = () => performance.now();
const ENV = { LOOPBACK_WAIT_BUDGET_S: "0", LOOPBACK_PROGRESS_EVERY_S: "0", LOOPBACK_MAX_WAITING_PER_TOKEN: "100000", LOOPBACK_MAX_SESSIONS_PER_TOKEN: "100000", LOOPBACK_MAX_OPEN_ASKS_PER_TOKEN: "100000", LOOPBACK_MAX_OPEN_ASKS_PER_SPACE: "100000", LOOPBACK_MAX_SOCKETS_PER_TOKEN: "100000" };

interface ReplicaSet {
  relays: RelayProcess[];
  url: string;
  person: string;
  agent: string;
  close(): Promise<void>;
}
/** The replicas a stage runs on: `n` of them, on one database. */
type Replicas = (n: number) => Promise<ReplicaSet>;

async function replicas(n: number): Promise<ReplicaSet> {
  const url = await freshDatabase();
  const relays = Array.from({ length: n }, () => new RelayProcess({ env: { ...ENV, LOOPBACK_DATABASE_URL: url } }));
  // The first one alone: it migrates the empty database and makes the first person's tokens, which
  // replicas racing on an empty database would each make. The others then start side by side.
  await relays[0].start();
  await Promise.all(relays.slice(1).map((r) => r.start()));
  return {
    relays,
    url,
    person: await relays[0].token("bench"),
    agent: await relays[0].token("bench", { agent: true }),
    close: async () => {
      await Promise.all(relays.map((r) => r.dispose()));
    },
  };
}

async function rawReply(base: string, token: string, askId: string, reply: unknown): Promise<number> {
  const res = await fetch(`${base}/api/v1/asks/${askId}/reply`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify(reply),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Rounds with a pause before each, alternating the person on the agent's replica (A) and on B. */
async function acrossReplicas(on: Replicas, runs: number, pauseMs: number, warmup: number) {
  const set = await on(2);
  const [a, b] = set.relays;
  const floorDb = postgres(set.url, { max: 1, onnotice: () => {} });
  await floorDb`create table if not exists floor (id serial primary key, body text)`;
  const agent = await Agent.connect(a.url, set.agent, "bench-replicas", "1.0");
  const socket = await new Person(a.url, set.person).socket(false);
  await socket.next((f) => f.type === "snapshot");
  const out = { same: [] as number[], across: [] as number[], commit: [] as number[] };
  for (let i = 0; i < 2 * (runs + warmup); i++) {
    const replyOn = i % 2 ? b : a;
    if (pauseMs) await Bun.sleep(pauseMs);
    const t = now();
    await floorDb`insert into floor (body) values (${'{"outcome":"answered","selected":["B"]}'})`;
    const commit = now() - t;
    if (pauseMs) await Bun.sleep(pauseMs);
    const call = agent.call("ask_question", { question: `Across ${i}?`, project: "replicas", options: [{ label: "A" }, { label: "B" }] });
    const opened = (await socket.next((f) => f.type === "ask.opened")) as any;
    const returned = call.then((result) => (structured(result), now()));
    const t2 = now();
    if ((await rawReply(replyOn.url, set.person, opened.ask.id, { outcome: "answered", selected: ["B"] })) !== 200) throw new Error("the reply was refused");
    const t3 = await returned;
    if (i >= 2 * warmup) {
      out.commit.push(commit);
      (replyOn === a ? out.same : out.across).push(t3 - t2);
    }
    socket.frames.length = 0;
  }
  socket.close();
  await agent.close();
  await floorDb.end({ timeout: 1 });
  await set.close();
  return out;
}

/** Complete cycles per second, agents spread over `n` replicas, the person answering on the agent's replica. */
async function cycles(on: Replicas, n: number, agentCount: number, seconds: number): Promise<number> {
  const set = await on(n);
  const sockets = await Promise.all(set.relays.map((r) => new Person(r.url, set.person).socket(false)));
  await Promise.all(sockets.map((s) => s.next((f) => f.type === "snapshot")));
  let stop = false;
  // Each replica's inbox answers the asks its own agents opened: the person's reply lands where the call is.
  const answering = sockets.map(async (socket, i) => {
    while (!stop && !socket.closed) {
      const f = (await socket.next((x) => x.type === "ask.opened" && (x as any).ask.project === `cycles-${i}`, 60_000).catch(() => undefined)) as any;
      if (f && !stop) void rawReply(set.relays[i].url, set.person, f.ask.id, { outcome: "answered", selected: ["A"] });
    }
  });
  for (const s of sockets) s.frames.length = 0;
  const agents = await Promise.all(Array.from({ length: agentCount }, (_, i) => Agent.connect(set.relays[i % n].url, set.agent, "bench-cycle", "1.0")));
  let done = 0;
  const deadline = now() + seconds * 1000;
  await Promise.all(
    agents.map(async (agent, i) => {
      for (let k = 0; now() < deadline; k++) {
        const result = structured(await agent.call("ask_question", { question: `Go ${i}.${k}?`, project: `cycles-${i % n}`, options: [{ label: "A" }, { label: "B" }] }));
        if (!result.reply) throw new Error(`cycle ended without a reply: ${JSON.stringify(result)}`);
        done++;
      }
    }),
  );
  stop = true;
  for (const s of sockets) s.close();
  await Promise.all(answering);
  await Promise.all(agents.map((a) => a.close()));
  await set.close();
  return done / seconds;
}

/** `count` agents waiting at once, half on each of two replicas; the person answers them all on the first. */
async function manyWaiting(on: Replicas, count: number) {
  const set = await on(2);
  const person = new Person(set.relays[0].url, set.person);
  const perSession = 100;
  const agents: Agent[] = [];
  for (let i = 0; i < Math.ceil(count / perSession); i++) agents.push(await Agent.connect(set.relays[i % 2].url, set.agent, "bench-many", "1.0"));
  const started = now();
  const calls = Array.from({ length: count }, (_, i) => agents[i % agents.length].call("ask_question", { question: `Many ${i}?`, project: "many" }).then(structured));
  let open: any[] = [];
  for (;;) {
    open = (await person.snapshot()).open.filter((a) => a.project === "many" && a.waiting);
    if (open.length === count || now() - started > 180_000) break;
    await Bun.sleep(500);
  }
  const allWaitingMs = now() - started;
  const rss = set.relays.map((r) => r.rss());
  const t = now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < open.length) await rawReply(set.relays[0].url, set.person, open[next++].id, { outcome: "answered", selected: [], text: "yes" });
    }),
  );
  const results = (await Promise.all(calls)) as any[];
  const answeredMs = now() - t;
  const answered = results.filter((r) => r.reply?.outcome === "answered").length;
  await Promise.all(agents.map((a) => a.close()));
  await set.close();
  return { answered, rss, allWaitingMs, answeredMs };
}

export async function benchReplicas({ smoke = false } = {}): Promise<Row[]> {
  // Each stage of the full run has a fresh database and only the replicas it measures. The smoke run
  // proves the stages, not their figures: one set of three serves them all, each on the first it needs.
  const shared = smoke ? await stage("replicas: 3 started", () => replicas(3)) : undefined;
  const on: Replicas = shared ? async (n) => ({ ...shared, relays: shared.relays.slice(0, n), close: async () => {} }) : replicas;
  try {
    return await rowsOn(on, smoke);
  } finally {
    await shared?.close();
  }
}

/** The replicas' rows, each stage on the replicas `on` gives it. */
async function rowsOn(on: Replicas, smoke: boolean): Promise<Row[]> {
  const rows: Row[] = [];
  // The smoke run proves the path (one uncounted round of each, a few counted), not the figures.
  const r = await stage("replicas: rounds paused 100 ms", () => acrossReplicas(on, smoke ? 3 : 100, 100, smoke ? 1 : 10));
  const commit = spread(r.commit);
  const across = spread(r.across);
  rows.push({ figure: "replicas, paused 100 ms: floor, one durable PostgreSQL commit (between the rounds)", ...commit, goal: "—" });
  rows.push({ figure: "replicas, paused 100 ms: reply on the agent's replica → agent", ...spread(r.same), goal: "—" });
  rows.push({ figure: "replicas, paused 100 ms: reply on another replica → agent (NOTIFY)", ...across, goal: "p99 ≤ same-replica p99 + 50 ms", met: across.p99 <= spread(r.same).p99 + 50 });
  const agentCount = smoke ? 10 : 50;
  const seconds = smoke ? 1 : 10;
  const perSecond: string[] = [];
  for (const n of [1, 2, 3]) perSecond.push(`${n}: ${Math.round(await stage(`replicas: throughput on ${n}`, () => cycles(on, n, agentCount, seconds)))}`);
  rows.push({ figure: `replicas: throughput, ask → reply → return, ${agentCount} agents spread over 1, 2, 3 replicas`, value: `${perSecond.join(", ")} cycles/s`, goal: "—" });
  const count = smoke ? 200 : Number(process.env.BENCH_MANY ?? 10_000);
  const w = await stage(`replicas: ${count} agents waiting`, () => manyWaiting(on, count));
  const mb = (b: number) => `${Math.round(b / 2 ** 20)} MB`;
  rows.push({
    figure: `replicas: ${count.toLocaleString("en")} agents waiting at once, half on each of 2 replicas`,
    value: `${w.answered}/${count} answered; RSS ${w.rss.map(mb).join(" + ")}; all waiting in ${(w.allWaitingMs / 1000).toFixed(1)} s, all answered in ${(w.answeredMs / 1000).toFixed(1)} s`,
    goal: "all answered, none lost",
    met: w.answered === count,
  });
  return rows;
}

if (import.meta.main) {
  const rows = await benchReplicas({ smoke: process.argv.includes("--smoke") });
  for (const row of rows) console.log(JSON.stringify(row));
  process.exit(0);
}
