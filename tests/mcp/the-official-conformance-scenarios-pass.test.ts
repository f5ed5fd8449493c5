import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { freePort, RelayProcess, ROOT } from "../support/relay-process.ts";

// docs/conformance.md says why each scenario runs or not; these are the ones that apply.
const APPLY = ["server-initialize", "ping", "tools-list", "tools-call-error", "server-sse-multiple-streams", "dns-rebinding-protection"];
const CLI = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");

let relay: RelayProcess;
let forwarder: Server<undefined>;
let out: string;

beforeAll(async () => {
  const port = await freePort();
  relay = await new RelayProcess({ env: { LOOPBACK_PUBLIC_URL: `http://127.0.0.1:${port}` } }).start();
  const token = await relay.token("ada", { agent: true });
  // The CLI cannot send a token: this adds one, and changes nothing else, Host and Origin included.
  forwarder = Bun.serve({
    hostname: "127.0.0.1",
    port,
    idleTimeout: 0,
    async fetch(request) {
      const { pathname, search } = new URL(request.url);
      const headers = new Headers(request.headers);
      headers.set("authorization", `Bearer ${token}`);
      const res = await fetch(`${relay.url}${pathname}${search}`, { method: request.method, headers, body: request.body, signal: request.signal, redirect: "manual" });
      return new Response(res.body, { status: res.status, headers: res.headers });
    },
  });
  out = mkdtempSync(join(tmpdir(), "loopback-conformance-"));
});
afterAll(async () => {
  expect(relay.log).not.toContain("internal error");
  forwarder.stop(true);
  rmSync(out, { recursive: true, force: true });
  await relay.dispose();
});

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

async function run(scenario: string): Promise<Check[]> {
  const dir = join(out, scenario);
  const proc = Bun.spawn(["bun", CLI, "server", "--url", `http://127.0.0.1:${forwarder.port}/mcp`, "--scenario", scenario, "-o", dir], { stdout: "pipe", stderr: "pipe" });
  const log = await new Response(proc.stdout).text();
  await proc.exited;
  const [saved] = readdirSync(dir);
  if (!saved) throw new Error(`${scenario} saved no results:\n${log}`);
  return JSON.parse(readFileSync(join(dir, saved, "checks.json"), "utf8"));
}

function listedAsNotApplying(): string[] {
  const doc = readFileSync(join(ROOT, "docs/conformance.md"), "utf8");
  const section = doc.split("## Scenarios that do not apply")[1] ?? "";
  return [...section.matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((m) => m[1]);
}

test("every server scenario the conformance package knows either runs here or is explained in docs/conformance.md", async () => {
  const proc = Bun.spawn(["bun", CLI, "list", "--server"], { stdout: "pipe" });
  const known = [...(await new Response(proc.stdout).text()).matchAll(/^\s+- ([a-z0-9-]+)/gm)].map((m) => m[1]);
  expect(known.length).toBeGreaterThan(20);
  const skipped = listedAsNotApplying();
  expect(skipped.filter((name) => APPLY.includes(name))).toEqual([]);
  expect(known.filter((name) => !APPLY.includes(name) && !skipped.includes(name))).toEqual([]);
  expect(skipped.filter((name) => !known.includes(name))).toEqual([]);
});

for (const scenario of APPLY) {
  test(`conformance: ${scenario}`, async () => {
    const checks = await run(scenario);
    expect(checks.length).toBeGreaterThan(0);
    const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
    expect(bad).toEqual([]);
    expect(checks.some((c) => c.status === "SUCCESS")).toBe(true);
  });
}
