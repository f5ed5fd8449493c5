// `bun tests/bench/first-load.ts`: the inbox's first load as the relay serves it today, with 10, 100
// and the allowed maximum of open asks (the space's cap, LOOPBACK_MAX_OPEN_ASKS_PER_SPACE) of ~250 KiB each. For each:
// from opening the event socket to its snapshot frame received and parsed (the list visible and the
// first ask's body at hand, since today's snapshot carries every body), the frame's size, and the
// relay's resident memory before and right after. Each size runs on a fresh relay with default caps;
// the asks are opened through MCP by as many agent tokens as the per-token cap needs.
import { DEFAULT_MAX_OPEN_ASKS_PER_SPACE, DEFAULT_MAX_OPEN_ASKS_PER_TOKEN } from "../../relay/src/config.ts";
import { Agent } from "../support/agent.ts";
import { Person } from "../support/person.ts";
import { RelayProcess } from "../support/relay-process.ts";

const SIZES = process.argv.includes("--smoke") ? [10] : [10, 100, DEFAULT_MAX_OPEN_ASKS_PER_SPACE];
const MB = 1024 * 1024;

const review = (n: number) => ({ title: `Review ${n}`, project: "first-load", content: [{ type: "markdown", text: `${n} `.padEnd(250 * 1024, "lorem ipsum ") }] });

async function firstLoad(asks: number) {
  const relay = await new RelayProcess({ env: { LOOPBACK_WAIT_BUDGET_S: "0.01" } }).start();
  try {
    const person = new Person(relay.url, await relay.token("bench"));
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
    Bun.gc(true);
    await Bun.sleep(500);
    const before = relay.rss();
    const started = performance.now();
    const socket = await person.socket(false);
    const snapshot = await socket.next((f) => f.type === "snapshot", 120_000).catch((e) => {
      throw new Error(`${e} (${JSON.stringify(socket.closedWith)}): ${relay.log.slice(-500)}`);
    });
    const ms = performance.now() - started;
    const after = relay.rss();
    const open = (snapshot as { snapshot: { open: unknown[] } }).snapshot.open.length;
    const bytes = JSON.stringify(snapshot).length;
    socket.close();
    return { asks, open, ms, bytes, before, after };
  } finally {
    await relay.dispose();
  }
}

console.log("| open asks of ~250 KiB | socket open → snapshot parsed (list and first body) ms | snapshot frame MiB | relay RSS before → after MB |");
console.log("|---|---|---|---|");
for (const n of SIZES) {
  const r = await firstLoad(n);
  console.log(`| ${r.open} | ${r.ms.toFixed(0)} | ${(r.bytes / MB).toFixed(1)} | ${(r.before / MB).toFixed(0)} → ${(r.after / MB).toFixed(0)} |`);
}
