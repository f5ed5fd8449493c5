import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Ask } from "@loopback/shared/generated/types";
import { RelayProcess } from "../support/relay-process.ts";
import { Person, until } from "./mcp-scene.ts";

const AGENTS = 1_000;
/** Long enough for a loaded machine; the test's own timeout leaves room for the answers after it. */
const WAITING_WITHIN_MS = 80_000;

let relay: RelayProcess;
beforeAll(async () => {
  // One agent token holds them all: past the default caps on open asks, of a token (100) and of a space (200).
  relay = await new RelayProcess({ env: { LOOPBACK_MAX_OPEN_ASKS_PER_TOKEN: String(AGENTS), LOOPBACK_MAX_OPEN_ASKS_PER_SPACE: String(AGENTS) }, firstPerson: "ada" }).start();
});
afterAll(() => relay.dispose());

test(`${AGENTS} agents wait at once on one relay, and each gets its own answer, none lost`, async () => {
  const person = new Person(relay.url, await relay.token("ada"));
  const token = await relay.token("ada", { agent: true });
  const started = Date.now();
  const child = Bun.spawn(["bun", join(import.meta.dir, "many-agents.ts"), relay.url, token, String(AGENTS), "1"], {
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: String(4 * AGENTS) },
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = new Response(child.stdout).text();
  const errors = new Response(child.stderr).text();

  let open: Ask[] = [];
  await until(
    async () => {
      open = (await person.snapshot()).open;
      return open.length >= AGENTS && open.every((a) => a.waiting);
    },
    `all ${AGENTS} agents wait`,
    // How soon is the benchmark's to say ("1,000 agents waiting at once"); here, only that they all
    // get there. On PostgreSQL in a loaded full run it has taken over 25 s.
    WAITING_WITHIN_MS - (Date.now() - started),
    250,
  ).catch(async () => {
    // Stopped first: its stderr ends only when it does.
    child.kill();
    throw new Error(`only ${open.filter((a) => a.waiting).length} of ${AGENTS} waiting in time:\n${await errors}`);
  });
  const allWaitingAfterMs = Date.now() - started;

  const queue = [...open];
  const answer = async () => {
    for (let ask = queue.pop(); ask; ask = queue.pop()) {
      const res = await person.reply(ask.id, { outcome: "answered", selected: [], text: `Answer for ${ask.project}` });
      expect(res.status).toBe(200);
    }
  };
  await Promise.all(Array.from({ length: 32 }, answer));

  expect(await child.exited).toBe(0);
  const results: { project: string; askId: string; reply?: { text?: string }; isError: boolean }[] = JSON.parse(await output);
  expect(results).toHaveLength(AGENTS);
  const askOf = new Map(open.map((a) => [a.project, a.id]));
  for (const r of results) {
    expect(r).toEqual({ project: r.project, askId: askOf.get(r.project)!, reply: { outcome: "answered", selected: [], text: `Answer for ${r.project}` } as any, isError: false });
  }
  expect(new Set(results.map((r) => r.askId)).size).toBe(AGENTS);
  const after = await person.snapshot();
  expect(after.open).toEqual([]);
  expect(relay.log).not.toContain("internal error");
  console.log(`${AGENTS} calls waiting after ${allWaitingAfterMs} ms; all answered after ${Date.now() - started} ms`);
}, 150_000);
