// `bun run test`: the linter and every test of the project on this machine. Installs Debian's Chromium,
// Firefox ESR, libfaketime and HAProxy when they are missing and this user may (root with apt-get),
// as the storage tests do for PostgreSQL (tests/support/postgres.ts), builds what the browser tests
// load, then runs the steps a
// few at a time (their larger suites split by file) and ends with one line: "N passed, N failed".
// `bun tests/run.ts relay mcp` runs only the steps whose names start so.
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { LIBFAKETIME } from "./support/libfaketime.ts";
import { PostgresServer } from "./support/postgres.ts";
import { EXTENSION_DIR, INSTALLED_PROFILE_ENV, installedProfile } from "./browser/harness/browser.ts";

const ROOT = resolve(import.meta.dir, "..");
const CHROMIUM = process.env.LOOPBACK_CHROMIUM ?? "/usr/bin/chromium";
const FIREFOX = process.env.LOOPBACK_FIREFOX ?? "/usr/bin/firefox-esr";

interface Step {
  name: string;
  /** What the step runs when it is not `bun test` over files (the linter, the build, the benchmark). */
  cmd?: string[];
  /** Test files and folders for `bun test`: their files are dealt into `shards` runs the pool runs side by side. */
  tests?: string[];
  shards?: number;
  env?: Record<string, string>;
  /** Reads the pass and fail counts from the step's output. */
  counts?: (out: string) => { passed: number; failed: number };
  /** Roughly the seconds the step took in a whole run: the pool starts the longest first, so the run ends with short ones. */
  weight: number;
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
/**
 * Tests of what never reaches the store (HTTP and MCP transport, origins, headers, discovery, static
 * files, the tools' listing, the test ports): a store under them changes nothing they prove, so the
 * PostgreSQL pass leaves them out too: there, each would start a relay on a database it never uses.
 */
const STORE_BLIND = new Set([
  "tests/hostile/a-stalled-request-is-closed.test.ts",
  "tests/hostile/the-web-inbox-serves-nothing-outside-its-folder.test.ts",
  "tests/mcp/an-oauth-client-with-a-wrong-token-is-told-so.test.ts",
  "tests/mcp/claude-code-s-discover-probe-falls-back-at-once.test.ts",
  "tests/mcp/every-tool-is-listed-with-the-contracts-schemas.test.ts",
  "tests/mcp/the-official-conformance-scenarios-pass.test.ts",
  "tests/mcp/the-registry-entry-describes-how-to-reach-the-relay.test.ts",
  "tests/relay/every-response-names-its-revision.test.ts",
  "tests/relay/requests-without-a-host-are-answered-as-with-one.test.ts",
  "tests/relay/the-event-socket-takes-only-its-own-origins.test.ts",
  "tests/relay/the-tests-own-ports-are-never-ones-the-kernel-hands-out.test.ts",
  "tests/relay/a-killed-relay-is-gone-only-once-its-port-is-let-go.test.ts",
]);
/** The test files of a folder, its subfolders' too, as paths from the root. */
const testFiles = (dir: string): string[] =>
  (readdirSync(join(ROOT, dir), { recursive: true }) as string[])
    .filter((f) => f.endsWith(".test.ts"))
    .map((f) => `${dir}/${f}`)
    .sort();
/** The test files of suites, for the pass that runs them on PostgreSQL. */
const onPostgres = (...dirs: string[]) => dirs.flatMap(testFiles).filter((f) => !SQLITE_ONLY.has(f) && !STORE_BLIND.has(f));
/** One suite, two stores: every relay these tests start runs on a fresh PostgreSQL database. */
const POSTGRES = { LOOPBACK_TEST_STORE: "postgres" };

const STEPS: Step[] = [
  { name: "lint: ESLint over the TypeScript and Svelte", cmd: ["npx", "eslint", "."], weight: 49 },
  { name: "ship: the single executable and the package", tests: ["tests/ship"], weight: 26 },
  { name: "store: addons-linter on both extension builds, the add-on rebuilt from its sources zip", tests: ["tests/store"], weight: 48 },
  { name: "shared: contract, generated shapes, ask rules", tests: ["shared"], weight: 13 },
  { name: "relay in-process: no import from a layer above, what each command loads, the ask feed's order", tests: ["relay/src"], weight: 2 },
  { name: "storage: both stores, replicas on PostgreSQL", tests: ["tests/storage"], weight: 34 },
  { name: "relay: REST, socket, uploads, storage", tests: testFiles("tests/relay"), shards: 2, weight: 92 },
  { name: "mcp: tools, waiting, tasks, conformance", tests: testFiles("tests/mcp"), shards: 2, weight: 106 },
  { name: "in-process: rules that take time, on a clock the test advances (each on the stores it names)", tests: ["tests/in-process"], weight: 11 },
  { name: "faults: crash under load, dropped connections, soak", tests: testFiles("tests/faults"), weight: 25 },
  { name: "replicas: several relays on one PostgreSQL behind HAProxy", tests: testFiles("tests/replicas"), shards: 2, weight: 217 },
  { name: "faults-pg: PostgreSQL restarted, killed and cut off under two relays", tests: testFiles("tests/faults-pg"), weight: 43 },
  { name: "hostile: fuzzing, spaces, tokens", tests: testFiles("tests/hostile"), weight: 76 },
  { name: "hostile on PostgreSQL: caps, agent tokens, revocation (fuzzing stays on SQLite)", tests: onPostgres("tests/hostile").filter((f) => !f.endsWith("/fuzz.test.ts")), env: POSTGRES, weight: 73 },
  { name: "agents: the real Claude Code, Codex and Gemini CLI", tests: testFiles("tests/agents"), shards: 2, weight: 85 },
  { name: "relay on PostgreSQL: the relay suite again, on the other store", tests: onPostgres("tests/relay"), env: POSTGRES, shards: 2, weight: 120 },
  // The planned-restart file proves its 200 waiting calls per client on SQLite; on PostgreSQL, what
  // the store changes (the calls resumed from it) with 50: at 200 it was the run's longest file (70 s).
  { name: "mcp on PostgreSQL: the MCP suite again, on the other store", tests: onPostgres("tests/mcp"), env: { ...POSTGRES, PLANNED_RESTART_CALLS: "50" }, shards: 3, weight: 180 },
  { name: "faults on PostgreSQL: the fault suite again, on the other store", tests: onPostgres("tests/faults"), env: POSTGRES, weight: 28 },
  { name: "extension: renderers and reply forms (vitest)", cmd: ["npm", "test", "-w", "extension"], counts: vitestCounts, weight: 20 },
  { name: "browser: extension and web inbox in Chromium, extension in Firefox", tests: testFiles("tests/browser"), shards: 6, weight: 420 },
  { name: "bench: smoke run", cmd: ["bun", "tests/bench/bench.ts", "--smoke"], weight: 60 },
];
/** Built once, before any test: the browser, store and ship tests load what it makes. */
const BUILD: Step = { name: "build: extensions, web inbox, single executable, package", cmd: ["npm", "run", "build"], weight: 0 };
/** How many runs go side by side. Most of a test's time is spent waiting on relays, browsers and timers, not computing. */
const JOBS = Math.max(1, Math.floor(Number(process.env.LOOPBACK_TEST_JOBS)) || 3);

/**
 * Debian's packages the tests run, by the path each installs: the browsers, libfaketime the clock-jump
 * test runs a relay under, and HAProxy in front of the replicas. They are installed here, once, before
 * the pool starts: shards installing them side by side would race for apt's lock.
 */
const PACKAGES = [
  { path: CHROMIUM, pkg: "chromium", env: "LOOPBACK_CHROMIUM" },
  { path: FIREFOX, pkg: "firefox-esr", env: "LOOPBACK_FIREFOX" },
  { path: LIBFAKETIME, pkg: "faketime", env: "LOOPBACK_LIBFAKETIME" },
  { path: process.env.LOOPBACK_HAPROXY ?? "/usr/sbin/haproxy", pkg: "haproxy", env: "LOOPBACK_HAPROXY" },
];

function ensurePackages(): void {
  const missing = PACKAGES.filter((b) => !existsSync(b.path));
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

/** One run of the pool: a step, or one shard of its test files. */
interface Job {
  step: Step;
  label: string;
  cmd: string[];
  weight: number;
}

/** A step's runs: its command, or its test files dealt into shards. */
function jobsOf(step: Step): Job[] {
  if (step.cmd) return [{ step, label: step.name.split(":")[0], cmd: step.cmd, weight: step.weight }];
  const tests = step.tests ?? [];
  const shards = Math.max(1, Math.min(step.shards ?? 1, tests.length));
  // A file path is given as `./…` so `bun test` runs that file, not every path containing its name.
  const paths = tests.map((t) => (t.endsWith(".test.ts") ? `./${t}` : t));
  return Array.from({ length: shards }, (_, i) => ({
    step,
    label: step.name.split(":")[0] + (shards > 1 ? ` [${i + 1}/${shards}]` : ""),
    // A hook or test with no timeout of its own gets 20 s, not 5: runs side by side start relays slower.
    cmd: ["bun", "test", "--timeout", "20000", ...paths.filter((_, n) => n % shards === i)],
    weight: step.weight / shards,
  }));
}

async function run(job: Job, lane = 0): Promise<{ passed: number; failed: number; ok: boolean }> {
  const started = Date.now();
  console.log(`▶ ${job.label}`);
  // Bun's fetch resets connections past its per-host limit under `bun test` (seen with a few dozen
  // concurrent MCP streams); the load tests hold thousands open.
  const env = {
    ...process.env,
    BUN_CONFIG_MAX_HTTP_REQUESTS: process.env.BUN_CONFIG_MAX_HTTP_REQUESTS ?? "16384",
    // Built once, before the pool starts.
    LOOPBACK_E2E_SKIP_BUILD: "1",
    // Each lane picks its servers' ports from a part of the range of its own (support/relay-process.ts `freePort`).
    LOOPBACK_TEST_PORTS: `${lane}/${JOBS + 1}`,
    // A test process keeps the memory it frees (support/test-process-allocator.ts, which keeps the
    // setting from the relays and browsers it starts): handing it back and faulting it in again cost
    // 8% of the MCP step's processor time (54 busy core-seconds against 50, three runs each).
    ...(job.step.tests ? { MIMALLOC_PURGE_DELAY: "-1" } : {}),
    ...job.step.env,
  };
  const proc = Bun.spawn(job.cmd, { cwd: ROOT, stdout: "pipe", stderr: "pipe", env });
  // Runs side by side would interleave their lines: each run's output is printed whole when it ends.
  let out = "";
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) out += decoder.decode(chunk);
  };
  await Promise.all([pump(proc.stdout), pump(proc.stderr), proc.exited]);
  const counts = (job.step.counts ?? (job.step.tests ? bunCounts : undefined))?.(out) ?? { passed: 0, failed: 0 };
  const ok = proc.exitCode === 0;
  const seconds = Math.round((Date.now() - started) / 1000);
  // The processor time of the run and of the processes it waited for (relays, browsers, agents): the
  // pool shares two cores, so a step's wall time says as much about its neighbours as about itself.
  const cpu = Math.round(Number(proc.resourceUsage()?.cpuTime.total ?? 0) / 1e6);
  cpuSeconds += cpu;
  process.stdout.write(`\n━━ ${ok ? "✓" : "✗"} ${job.step.name}${job.label.includes("[") ? ` ${job.label.slice(job.label.indexOf("["))}` : ""} (${seconds} s, ${cpu} s of processor)\n$ ${job.cmd.join(" ")}\n${out}`);
  if (!ok) recaps.push(recap(job.label, out));
  return { ...counts, ok };
}

/**
 * What a failed run said about its failures, kept short: CI keeps only the end of a long log, so the
 * run ends by naming each failed test with the lines Bun printed around it (its error, a timeout).
 */
function recap(label: string, out: string): string {
  const all = out.split("\n");
  // Bun's closing list ("3 tests failed:" and each test again) says nothing new, and the slices
  // around its lines repeated every failure.
  const summary = all.findIndex((line) => /^\d+ tests? failed:$/.test(line.trim()));
  const lines = summary < 0 ? all : all.slice(0, summary);
  // Bun prints a test's error before its "(fail)" line, and a timeout's note just after it.
  const failures = lines.flatMap((line, i) => (/^\s*\(fail\)/.test(line) ? [lines.slice(Math.max(0, i - 12), i + 2).join("\n")] : []));
  const said = failures.length ? failures.join("\n…\n") : all.slice(-15).join("\n");
  // The first failure is kept whole: when one test leaves a relay down, the ones after it only echo it.
  return `── ${label}\n${said.length > 4000 ? `${said.slice(0, 4000)}…` : said}`;
}
const recaps: string[] = [];
let cpuSeconds = 0;

/** Runs the jobs, `JOBS` at a time, the heaviest first. */
async function pool(jobs: Job[], each: (job: Job, r: { passed: number; failed: number; ok: boolean }) => void): Promise<void> {
  const queue = [...jobs].sort((a, b) => b.weight - a.weight);
  const lane = async (i: number) => {
    for (let job = queue.shift(); job; job = queue.shift()) each(job, await run(job, i));
  };
  await Promise.all(Array.from({ length: Math.max(1, JOBS) }, (_, i) => lane(i)));
}

// One PostgreSQL server for every step that runs relays on PostgreSQL, stopped when the run ends
// (`bun test` runs no exit handlers, so a server a test process starts would outlive it).
let pg: PostgresServer | undefined;
const needsPostgres = (step: Step) => step.env?.LOOPBACK_TEST_STORE === "postgres" || step.name.startsWith("storage") || step.name.startsWith("replicas") || step.name.startsWith("in-process") || step.name.startsWith("bench") || step.name.startsWith("ship");

// One Chromium profile with the extension installed and allowed to reach the relays, made once: every
// side panel's browser starts from a copy of it (harness/browser.ts `installedProfile`).
const needsChromium = (step: Step) => step.name.startsWith("browser") || step.name.startsWith("bench");
let profileDir: string | undefined;

let passed = 0;
let failed = 0;
const broken: string[] = [];
const started = Date.now();
try {
  if (!only.length || only.some((o) => ["browser", "faults", "replicas"].some((name) => name.startsWith(o)))) ensurePackages();
} catch (e) {
  console.error(String((e as Error).message));
  broken.push("packages");
}
const chosen = STEPS.filter((step) => !only.length || only.some((o) => step.name.startsWith(o)));
const tally = (job: Job, r: { passed: number; failed: number; ok: boolean }) => {
  passed += r.passed;
  failed += r.failed;
  if (!r.ok) broken.push(job.label);
};
try {
  if (!only.length || only.some((o) => BUILD.name.startsWith(o))) {
    const built = await run(jobsOf(BUILD)[0]);
    tally(jobsOf(BUILD)[0], built);
    // The steps' relays and CLI run from the single executable just built from this source: what
    // people install, on half the processor time of a start from source (relay-process.ts). A run of
    // chosen steps builds nothing, and runs the source.
    if (built.ok) process.env.LOOPBACK_TEST_RELAY = join(ROOT, "dist/loopback");
  }
  // The run's own servers (PostgreSQL) take the last part of the test ports; each lane has one of the others.
  process.env.LOOPBACK_TEST_PORTS = `${JOBS}/${JOBS + 1}`;
  if (chosen.some(needsPostgres)) {
    pg = await new PostgresServer().start();
    process.env.LOOPBACK_TEST_PG = pg.url("postgres");
  }
  if (chosen.some(needsChromium) && existsSync(join(EXTENSION_DIR, "manifest.json")) && existsSync(CHROMIUM)) {
    // Without it each browser makes its own profile, as a test file run alone does.
    profileDir = await installedProfile().catch((e) => void console.log(`No installed Chromium profile to copy (${String(e)}): each browser installs the extension itself.`));
    if (profileDir) process.env[INSTALLED_PROFILE_ENV] = profileDir;
  }
  console.log(`${chosen.length} steps, ${JOBS} runs at a time (LOOPBACK_TEST_JOBS)`);
  await pool(chosen.flatMap(jobsOf), tally);
} finally {
  pg?.stop();
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
}
if (recaps.length) console.log(`\nWhat failed:\n${recaps.join("\n")}`);
console.log(`\n${broken.length ? `Failed steps: ${broken.join("; ")}` : "Every step passed"} in ${Math.round((Date.now() - started) / 1000)} s (${cpuSeconds} s of processor).`);
// A step that failed without a failing test (a crash, a build error) still counts as a failure.
console.log(`${passed} passed, ${Math.max(failed, broken.length && !failed ? 1 : failed)} failed`);
process.exit(broken.length ? 1 : 0);
