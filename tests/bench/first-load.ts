// The inbox's first load with 10, 100 and the allowed maximum of open asks (the space's cap,
// LOOPBACK_MAX_OPEN_ASKS_PER_SPACE) of ~250 KiB each. For each: from opening the event socket to its
// snapshot frame received and parsed, for a reader of revision 5 (the list as summaries and the
// newest asks whole: the list visible and the first ask's body shown) and of revision 4 (every ask
// whole, up to its byte bound); the frame's size; and the relay's resident memory before and right
// after. Each size runs on a fresh relay with default caps; the asks are opened through MCP by as
// many agent tokens as the per-token cap needs. `bun tests/bench/first-load.ts` prints its table;
// `bun run bench` adds its rows.
import { DEFAULT_MAX_OPEN_ASKS_PER_SPACE, DEFAULT_MAX_OPEN_ASKS_PER_TOKEN } from "../../relay/src/config.ts";
import { Agent } from "../support/agent.ts";
import { Person } from "../support/person.ts";
import { RelayProcess } from "../support/relay-process.ts";
import type { Row } from "./stats.ts";

const MB = 1024 * 1024;

const review = (n: number) => ({ title: `Review ${n}`, project: "first-load", content: [{ type: "markdown", text: `${n} `.padEnd(250 * 1024, "lorem ipsum ") }] });

export interface FirstLoad {
  asks: number;
  revision: string;
  listed: number;
  ms: number;
  bytes: number;
  before: number;
  after: number;
}

async function fill(relay: RelayProcess, asks: number): Promise<void> {
  const tokens = await Promise.all(Array.from({ length: Math.ceil(asks / DEFAULT_MAX_OPEN_ASKS_PER_TOKEN) }, () => relay.token("bench", { agent: true })));
  let next = 0;
  await Promise.all(
    tokens.map(async (token) => {
      const agent = await Agent.connect(relay.url, token);
      for (let i = 0; i < DEFAULT_MAX_OPEN_ASKS_PER_TOKEN && next < asks; i++) {
        const result = await agent.call("request_review", review(next++));
        if (result.isError) throw new Error(`refused: ${JSON.stringify(result.content)}`);
      }
      await agent.close();
    }),
  );
}

async function load(relay: RelayProcess, person: Person, asks: number): Promise<FirstLoad> {
  await Bun.sleep(500);
  // Signed in, as an inbox is before it loads: a fresh relay's first answer to a token is not the snapshot's cost.
  await person.api("GET", "/whoami");
  const before = relay.rss();
  const started = performance.now();
  const socket = await person.socket(false);
  const frame = (await socket.next((f) => f.type === "snapshot", 120_000).catch((e) => {
    throw new Error(`${e} (${JSON.stringify(socket.closedWith)}): ${relay.log.slice(-500)}`);
  })) as unknown as { snapshot: { open: unknown[]; whole?: unknown[] } };
  const ms = performance.now() - started;
  const after = relay.rss();
  socket.close();
  if (person.revision === "5" && asks > 0 && !frame.snapshot.whole?.length) throw new Error("the snapshot carried no ask whole");
  return { asks, revision: person.revision ?? "1", listed: frame.snapshot.open.length, ms, bytes: JSON.stringify(frame).length, before, after };
}

/** The first load at each size, for a reader of revision 5 and then of revision 4, each size on a fresh relay. */
export async function benchFirstLoad({ smoke }: { smoke: boolean }): Promise<FirstLoad[]> {
  const results: FirstLoad[] = [];
  for (const asks of smoke ? [10] : [10, 100, DEFAULT_MAX_OPEN_ASKS_PER_SPACE]) {
    const relay = await new RelayProcess({ env: { LOOPBACK_WAIT_BUDGET_S: "0.01" } }).start();
    try {
      const person = new Person(relay.url, await relay.token("bench"));
      await fill(relay, asks);
      for (const revision of ["5", "4"]) results.push(await load(relay, person.reading(revision), asks));
    } finally {
      await relay.dispose();
    }
  }
  return results;
}

/** The results as the benchmark's rows: the goal is for revision 5 at the space's cap. */
export function firstLoadRows(results: FirstLoad[]): Row[] {
  return results.map((r) => {
    const grownMb = (r.after - r.before) / MB;
    const atCap = r.revision === "5" && r.asks === DEFAULT_MAX_OPEN_ASKS_PER_SPACE;
    return {
      figure: `inbox first load, ${r.asks} open asks of 250 KiB, revision ${r.revision}: socket open → snapshot parsed${r.revision === "5" ? " (list and first body)" : ""}`,
      p50: r.ms,
      value: `${r.listed} listed, frame ${(r.bytes / MB).toFixed(2)} MiB, relay RSS ${(r.before / MB).toFixed(0)} → ${(r.after / MB).toFixed(0)} MB`,
      goal: atCap ? "< 1 s, relay grows ≤ 50 MB" : "—",
      ...(atCap && { met: r.ms < 1000 && grownMb <= 50 }),
    };
  });
}

if (import.meta.main) {
  console.log("| open asks of ~250 KiB | revision | socket open → snapshot parsed ms | listed | snapshot frame MiB | relay RSS before → after MB |");
  console.log("|---|---|---|---|---|---|");
  for (const r of await benchFirstLoad({ smoke: process.argv.includes("--smoke") })) {
    console.log(`| ${r.asks} | ${r.revision} | ${r.ms.toFixed(0)} | ${r.listed} | ${(r.bytes / MB).toFixed(2)} | ${(r.before / MB).toFixed(0)} → ${(r.after / MB).toFixed(0)} |`);
  }
}
