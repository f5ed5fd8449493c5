// `bun run test`: the linter and every test of the project, in order, on this machine. Installs Debian's Chromium
// and Firefox ESR for the browser tests when they are missing and this user may (root with
// apt-get), as the storage tests do for PostgreSQL (tests/support/postgres.ts) and the replica tests
// for HAProxy (tests/support/haproxy.ts), builds what the
// browser tests load, and ends with one line: "N passed, N failed".
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { PostgresServer } from "./support/postgres.ts";

const ROOT = resolve(import.meta.dir, "..");
const CHROMIUM = process.env.LOOPBACK_CHROMIUM ?? "/usr/bin/chromium";
const FIREFOX = process.env.LOOPBACK_FIREFOX ?? "/usr/bin/firefox-esr";

interface Step {
  name: string;
  cmd: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** Reads the pass and fail counts from the step's output. */
  counts?: (out: string) => { passed: number; failed: number };
}

const bunCounts = (out: string) => ({
  passed: sum(out, /^\s*(\d+) pass$/gm),
  failed: sum(out, /^\s*(\d+) fail$/gm),
});
const vitestCounts = (out: string) => {
  const line = /Tests\s+(.*)\(\d+\)/.exec(out.replace(/\x1b\[[0-9;]*m/g, ""))?.[1] ?? "";
  return { passed: Number(/(\d+) passed/.exec(line)?.[1] ?? 0), failed: Number(/(\d+) failed/.exec(line)?.[1] ?? 0) };
};

function sum(text: string, re: RegExp): number {
  let n = 0;
  for (const m of text.matchAll(re)) n += Number(m[1]);
  return n;
}

const only = process.argv.slice(2);

/** Tests of the SQLite file itself (its permissions on disk, its backups) and of the CLI's flags: the PostgreSQL pass leaves them out. */
const SQLITE_ONLY = new Set([
  "tests/relay/the-data-directory-is-private-to-its-user.test.ts",
  "tests/relay/the-cli-takes-flags-as-people-expect.test.ts",
  "tests/relay/a-backup-taken-while-agents-ask-restores-every-acknowledged-reply.test.ts",
  "tests/faults/a-full-disk-refuses-writes-and-says-so.test.ts",
]);
/** The test files of suites, for the pass that runs them on PostgreSQL. */
const onPostgres = (...dirs: string[]) =>
  dirs.flatMap((dir) =>
    readdirSync(join(ROOT, dir))
      .filter((f) => f.endsWith(".test.ts"))
      .map((f) => `${dir}/${f}`)
      .filter((f) => !SQLITE_ONLY.has(f))
      .map((f) => `./${f}`),
  );
/** One suite, two stores: every relay these tests start runs on a fresh PostgreSQL database. */
const POSTGRES = { LOOPBACK_TEST_STORE: "postgres" };

const STEPS: Step[] = [
  { name: "lint: ESLint over the TypeScript and Svelte", cmd: ["npx", "eslint", "."] },
  { name: "build: extensions, web inbox, single executable, package", cmd: ["npm", "run", "build"] },
  { name: "ship: the single executable and the package", cmd: ["bun", "test", "tests/ship"], counts: bunCounts },
  { name: "store: addons-linter on both extension builds, the add-on rebuilt from its sources zip", cmd: ["bun", "test", "tests/store"], counts: bunCounts },
  { name: "shared: contract, generated shapes, ask rules", cmd: ["bun", "test", "shared"], counts: bunCounts },
  { name: "relay structure: no import from a layer above", cmd: ["bun", "test", "relay/src"], counts: bunCounts },
  { name: "storage: both stores, replicas on PostgreSQL", cmd: ["bun", "test", "tests/storage"], counts: bunCounts },
  { name: "relay: REST, socket, uploads, storage", cmd: ["bun", "test", "tests/relay"], counts: bunCounts },
  { name: "mcp: tools, waiting, tasks, conformance", cmd: ["bun", "test", "tests/mcp"], counts: bunCounts },
  { name: "in-process: rules that take time, on a clock the test advances (each on the stores it names)", cmd: ["bun", "test", "tests/in-process"], counts: bunCounts },
  // The trailing slash keeps `bun test`'s path filter from taking tests/faults-pg/ too.
  { name: "faults: crash under load, dropped connections, soak", cmd: ["bun", "test", "tests/faults/"], counts: bunCounts },
  { name: "replicas: several relays on one PostgreSQL behind HAProxy", cmd: ["bun", "test", "tests/replicas"], counts: bunCounts },
  { name: "faults-pg: PostgreSQL restarted, killed and cut off under two relays", cmd: ["bun", "test", "tests/faults-pg"], counts: bunCounts },
  { name: "hostile: fuzzing, spaces, tokens", cmd: ["bun", "test", "tests/hostile"], counts: bunCounts },
  { name: "hostile on PostgreSQL: caps, agent tokens, revocation (fuzzing stays on SQLite)", cmd: ["bun", "test", ...onPostgres("tests/hostile").filter((f) => !f.endsWith("/fuzz.test.ts"))], env: POSTGRES, counts: bunCounts },
  { name: "agents: the real Claude Code, Codex and Gemini CLI", cmd: ["bun", "test", "tests/agents"], counts: bunCounts },
  { name: "relay on PostgreSQL: the relay suite again, on the other store", cmd: ["bun", "test", ...onPostgres("tests/relay")], env: POSTGRES, counts: bunCounts },
  { name: "mcp on PostgreSQL: the MCP suite again, on the other store", cmd: ["bun", "test", ...onPostgres("tests/mcp")], env: POSTGRES, counts: bunCounts },
  { name: "faults on PostgreSQL: the fault suite again, on the other store", cmd: ["bun", "test", ...onPostgres("tests/faults")], env: POSTGRES, counts: bunCounts },
  { name: "extension: renderers and reply forms (vitest)", cmd: ["npm", "test", "-w", "extension"], counts: vitestCounts },
  { name: "browser: extension and web inbox in Chromium, extension in Firefox", cmd: ["bun", "test", "tests/browser"], counts: bunCounts },
  { name: "bench: smoke run", cmd: ["bun", "tests/bench/bench.ts", "--smoke"] },
];

/** Debian's packages the browser tests drive, and libfaketime the clock-jump test runs a relay under, by the path each installs. */
const BROWSERS = [
  { path: CHROMIUM, pkg: "chromium", env: "LOOPBACK_CHROMIUM" },
  { path: FIREFOX, pkg: "firefox-esr", env: "LOOPBACK_FIREFOX" },
  { path: "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1", pkg: "faketime", env: "(none)" },
];

function ensureBrowsers(): void {
  const missing = BROWSERS.filter((b) => !existsSync(b.path));
  if (!missing.length) return;
  if (process.getuid?.() !== 0 || !existsSync("/usr/bin/apt-get")) {
    const names = missing.map((b) => `${b.path} (Debian's \`${b.pkg}\`, or set ${b.env})`).join(" and ");
    throw new Error(`The tests need ${names}.`);
  }
  console.log(`Installing Debian's ${missing.map((b) => b.pkg).join(" and ")} for the tests…`);
  for (const cmd of [["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", ...missing.map((b) => b.pkg)]]) {
    const r = Bun.spawnSync(cmd, { stdout: "inherit", stderr: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
    if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed`);
  }
}

async function run(step: Step): Promise<{ passed: number; failed: number; ok: boolean }> {
  console.log(`\n━━ ${step.name}\n$ ${step.cmd.join(" ")}`);
  // Bun's fetch resets connections past its per-host limit under `bun test` (seen with a few dozen
  // concurrent MCP streams); the load tests hold thousands open.
  const env = {
    ...process.env,
    BUN_CONFIG_MAX_HTTP_REQUESTS: process.env.BUN_CONFIG_MAX_HTTP_REQUESTS ?? "16384",
    // Built once by the first step.
    LOOPBACK_E2E_SKIP_BUILD: "1",
    ...step.env,
  };
  const proc = Bun.spawn(step.cmd, { cwd: step.cwd ?? ROOT, stdout: "pipe", stderr: "pipe", env });
  let out = "";
  const pump = async (stream: ReadableStream<Uint8Array>, to: NodeJS.WriteStream) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) {
      const text = decoder.decode(chunk);
      out += text;
      to.write(text);
    }
  };
  await Promise.all([pump(proc.stdout, process.stdout), pump(proc.stderr, process.stderr), proc.exited]);
  const counts = step.counts?.(out) ?? { passed: 0, failed: 0 };
  return { ...counts, ok: proc.exitCode === 0 };
}

// One PostgreSQL server for every step that runs relays on PostgreSQL, stopped when the run ends
// (`bun test` runs no exit handlers, so a server a test process starts would outlive it).
let pg: PostgresServer | undefined;
const needsPostgres = (step: Step) => step.env === POSTGRES || step.name.startsWith("replicas") || step.name.startsWith("in-process") || step.name.startsWith("bench") || step.name.startsWith("ship");

let passed = 0;
let failed = 0;
const broken: string[] = [];
const started = Date.now();
try {
  if (!only.length || only.some((o) => "browser".startsWith(o) || "faults".startsWith(o))) ensureBrowsers();
} catch (e) {
  console.error(String((e as Error).message));
  broken.push("browsers");
}
try {
  for (const step of STEPS) {
    if (only.length && !only.some((o) => step.name.startsWith(o))) continue;
    if (needsPostgres(step) && !pg) {
      pg = await new PostgresServer().start();
      process.env.LOOPBACK_TEST_PG = pg.url("postgres");
    }
    const r = await run(step);
    passed += r.passed;
    failed += r.failed;
    if (!r.ok) broken.push(step.name);
  }
} finally {
  pg?.stop();
}
console.log(`\n${broken.length ? `Failed steps: ${broken.join("; ")}` : "Every step passed"} in ${Math.round((Date.now() - started) / 1000)} s.`);
// A step that failed without a failing test (a crash, a build error) still counts as a failure.
console.log(`${passed} passed, ${Math.max(failed, broken.length && !failed ? 1 : failed)} failed`);
process.exit(broken.length ? 1 : 0);
