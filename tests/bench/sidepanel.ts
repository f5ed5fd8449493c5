// How long the side panel takes to show a heavy review: a real relay, the built extension in
// Chromium, and an agent's review holding a large multi-file diff and 2,000 lines of TypeScript,
// together as large as an ask may be (256 KiB of input). Each run opens the ask from the list and
// times, inside the page, from the navigation to the moment every renderer has finished and the
// page is laid out: all 2,000 lines highlighted by shiki, every file of the diff listed, and every
// file that opens unfolded drawn by diff2html. Then the person comments on twenty of its lines (ten
// of the code, ten of the diff) and the same opening is timed again, comments drawn in their places.
//
// `bun tests/bench/sidepanel.ts [runs]` prints the result; `benchSidepanel` is what bench.ts calls.
/// <reference path="../browser/chrome.d.ts" />
import type { Page } from "playwright-core";
import type { ToolReply } from "@loopback/shared/generated/types";
import { TestAgent } from "../browser/harness/agent";
import { TestBrowser, ensureBuilt } from "../browser/harness/browser";
import { RelayProcess } from "../support/relay-process.ts";

/** The largest input the relay accepts, less room for the JSON-RPC envelope's own fields. */
const INPUT_BUDGET_BYTES = 256 * 1024 - 2 * 1024;
const CODE_LINES = 2_000;
const STEP_MS = 30_000;
/** Comments the person leaves before the second series of opens: half on the code, half on the diff. */
export const COMMENTS = 20;

export interface SidepanelBench {
  p50: number;
  p99: number;
  runs: number;
  /** The first open, which also loads shiki's grammar and diff2html; not among the runs. */
  cold: number;
  /** The first open until the lines on screen were highlighted and the diff drawn. */
  coldInView: number;
  /** The same opening with COMMENTS comments on the ask's lines. */
  withComments: { p50: number; p99: number; runs: number; comments: number };
  /** What was rendered, so the figure can be read against it. */
  shape: { inputBytes: number; diffBytes: number; diffFiles: number; diffFilesDrawn: number; codeLines: number };
}

// --- the review -----------------------------------------------------------------------------------

/** A small deterministic generator, so every run of the bench renders the same review. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32);
}

const NAMES = ["order", "invoice", "customer", "cart", "session", "payment", "ledger", "stock", "shipment", "refund", "account", "price"];

/** One line of plausible TypeScript at an indentation depth; about 40 characters on average, as real code is. */
function tsLine(next: () => number, depth: number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)]!;
  const a = pick(NAMES);
  const b = pick(NAMES);
  const A = a[0]!.toUpperCase() + a.slice(1);
  const n = Math.floor(next() * 1000);
  const templates = [
    `const ${a}Total = sum(${b}s, (x) => x.amount);`,
    `if (!${a} || ${a}.closed) return null;`,
    `const rows = await db.query(SELECT_${b.toUpperCase()}, [id]);`,
    `export function load${A}(id: string): ${A} | undefined {`,
    `// The upstream API allows ${n} ms per ${a}.`,
    `this.${a}s.set(${b}.id, { ...${b}, at: now() });`,
    `for (const ${a} of ${b}.${a}s) yield ${a};`,
    `throw new ${A}Error(\`no ${a} for \${id}\`);`,
    `return { id: ${a}.id, total: ${a}.total };`,
    `${a}.count += ${n % 10};`,
    `import { ${A} } from "./${a}";`,
    `private readonly ${a}s = new Map<string, ${A}>();`,
    `}`,
    `},`,
    `});`,
    ``,
    ``,
  ];
  return "  ".repeat(depth) + pick(templates);
}

function typescript(lines: number, seed: number): string {
  const next = random(seed);
  return Array.from({ length: lines }, () => tsLine(next, Math.floor(next() * 3))).join("\n");
}

const hash = (next: () => number) => Math.floor(next() * 2 ** 28).toString(16).padStart(7, "0");

/** One file's diff: a few hunks of context, removals and additions. */
function fileDiff(index: number, next: () => number): string {
  const path = `src/${NAMES[index % NAMES.length]}/${NAMES[(index * 7) % NAMES.length]}-${index}.ts`;
  const out = [`diff --git a/${path} b/${path}`, `index ${hash(next)}..${hash(next)} 100644`, `--- a/${path}`, `+++ b/${path}`];
  let line = 1 + Math.floor(next() * 40);
  const hunks = 1 + Math.floor(next() * 3);
  for (let h = 0; h < hunks; h++) {
    const body: string[] = [];
    let oldCount = 0;
    let newCount = 0;
    const context = () => (body.push(` ${tsLine(next, 1)}`), oldCount++, newCount++);
    for (let i = 0; i < 3; i++) context();
    const blocks = 1 + Math.floor(next() * 3);
    for (let k = 0; k < blocks; k++) {
      const removed = Math.floor(next() * 6);
      const added = 1 + Math.floor(next() * 8);
      for (let i = 0; i < removed; i++) {
        body.push(`-${tsLine(next, 1 + Math.floor(next() * 2))}`);
        oldCount++;
      }
      for (let i = 0; i < added; i++) {
        body.push(`+${tsLine(next, 1 + Math.floor(next() * 2))}`);
        newCount++;
      }
      for (let i = 0; i < 3; i++) context();
    }
    out.push(`@@ -${line},${oldCount} +${line},${newCount} @@ export class ${NAMES[h % NAMES.length]}Service {`, ...body);
    line += oldCount + 20 + Math.floor(next() * 60);
  }
  return out.join("\n");
}

/** The review: 2,000 lines of code, and as many files of diff as fit in what is left of the budget. */
export function review() {
  const code = typescript(CODE_LINES, 7);
  const next = random(11);
  const files: string[] = [];
  const input = (diff: string) => ({
    title: "Move the order pipeline onto the new ledger",
    summary: "Every service now writes through the ledger; the diff is large, the code is the new ledger.",
    project: "bench",
    content: [
      { type: "code", language: "ts", filename: "src/ledger/ledger.ts", code },
      { type: "diff", diff },
    ],
  });
  const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;
  for (;;) {
    const candidate = fileDiff(files.length, next);
    if (bytes(input([...files, candidate].join("\n"))) > INPUT_BUDGET_BYTES) break;
    files.push(candidate);
  }
  const diff = files.join("\n");
  return { input: input(diff), inputBytes: bytes(input(diff)), diffBytes: new TextEncoder().encode(diff).length, diffFiles: files.length };
}

// --- the measurement ------------------------------------------------------------------------------

/**
 * Navigates the panel to the ask and resolves with the milliseconds until it is fully rendered and
 * laid out, watched by a MutationObserver, and until it was first in view (the lines on screen
 * highlighted and the diff drawn; the rest of a long file is still being highlighted a step at a
 * time). Runs in the page.
 */
function openAndTime([askId, files, comments, timeoutMs]: [string, number, number, number]): Promise<{ complete: number; inView: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let inView = 0;
    const diffDrawn = (article: Element) => {
      const diff = article.querySelector("[data-block=diff]");
      if (!diff || diff.querySelector(".pending")) return false;
      const sections = diff.querySelectorAll("section[data-diff-file]");
      if (sections.length !== files) return false;
      for (let i = 0; i < sections.length; i++) {
        const open = sections[i]!.querySelector(".file-head")?.getAttribute("aria-expanded") === "true";
        if (open && !sections[i]!.querySelector(".d2h-file-wrapper table")) return false;
      }
      return true;
    };
    const timer = setTimeout(() => {
      observer.disconnect();
      const article = document.querySelector(`article[data-ask="${askId}"]`);
      const state = article ? `highlighting: ${article.querySelector("[data-block=code]")?.getAttribute("data-highlight")}, files: ${article.querySelectorAll("section[data-diff-file]").length} of ${files}, drawn: ${article.querySelectorAll(".d2h-file-wrapper").length}, comments: ${article.querySelectorAll("[data-comment]").length} of ${comments}` : "no ask";
      reject(new Error(`The ask was not fully rendered within ${timeoutMs} ms (${state})`));
    }, timeoutMs);
    const observer = new MutationObserver(() => {
      const article = document.querySelector(`article[data-ask="${askId}"]`);
      if (!article || !article.querySelector("[data-block=code] pre.shiki") || !diffDrawn(article)) return;
      if (article.querySelectorAll("[data-comment]").length !== comments) return;
      // Style and layout are part of showing it: force them before the clock stops.
      void document.documentElement.offsetHeight;
      inView ||= performance.now() - started;
      if (article.querySelector("[data-block=code]")?.getAttribute("data-highlight") !== "done") return;
      observer.disconnect();
      clearTimeout(timer);
      resolve({ complete: performance.now() - started, inView });
    });
    observer.observe(document.body, { childList: true, subtree: true, attributes: true });
    location.hash = `#/ask/${encodeURIComponent(askId)}`;
  });
}

async function backToList(page: Page): Promise<void> {
  await page.evaluate(() => (location.hash = "#/"));
  await page.locator(".list-pane").waitFor({ timeout: STEP_MS });
  // Let the unmounted ask's leftovers (timers, GC) settle so one run does not bill the next.
  await page.waitForTimeout(150);
}

/** The person comments on `comments` lines spread through the code and the diff's drawn files, as they would: click, type, Escape. */
async function comment(page: Page, askId: string, comments: number): Promise<void> {
  const article = page.locator(`article[data-ask="${askId}"]`);
  const code = article.locator("[data-block=code] .line");
  const rows = article.locator("[data-block=diff] .d2h-file-wrapper tbody tr:not(.lb-below-row):not(:has(.d2h-info))");
  // Lines with something on them: an empty line has nothing to click.
  const written = await code.evaluateAll((lines) => lines.flatMap((line, i) => (line.textContent?.trim() ? [i] : [])));
  const diffRows = await rows.count();
  const spread = (i: number, n: number) => Math.floor(((Math.floor(i / 2) + 0.5) * n) / (comments / 2));
  for (let i = 0; i < comments; i++) {
    const target = i % 2 === 0 ? code.nth(written[spread(i, written.length)]!) : rows.nth(spread(i, diffRows));
    await target.scrollIntoViewIfNeeded({ timeout: STEP_MS });
    await target.click({ timeout: STEP_MS });
    await article.locator("[data-comment=draft] textarea").waitFor({ timeout: STEP_MS });
    await page.keyboard.type(`Comment ${i + 1}: this line needs a second look.`);
    await page.keyboard.press("Escape");
  }
  const made = await article.locator("[data-comment=draft]").count();
  if (made !== comments) throw new Error(`${made} comments made, not ${comments}`);
}

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

/** `runs` opens of each ask; `comments` (COMMENTS unless said, an even number: half on the code, half on the diff) on the second. */
export async function benchSidepanel(opts: { runs: number; comments?: number }): Promise<SidepanelBench> {
  const comments = opts.comments ?? COMMENTS;
  await ensureBuilt();
  const relay = await new RelayProcess({ env: { LOOPBACK_WAIT_BUDGET_S: "0.1", LOOPBACK_PROGRESS_EVERY_S: "0" } }).start();
  let agent: TestAgent | undefined;
  // Chromium starts while the agent asks: nothing is timed until both are done.
  const launching = TestBrowser.withExtension();
  // Its failure is thrown where it is awaited, not as an unhandled rejection while the agent asks.
  launching.catch(() => {});
  try {
    const personToken = await relay.token("bench");
    agent = await TestAgent.connect(relay.url, await relay.token("bench", { agent: true }));
    const { input, inputBytes, diffBytes, diffFiles } = review();
    const { askId } = await agent.call<ToolReply>("request_review", input);
    // The same review a second time (another project, so it is another ask), for the person to comment on.
    const { askId: commentedId } = await agent.call<ToolReply>("request_review", { ...input, project: "bench-comments" });

    const browser = await launching;
    await browser.connect(relay.url, personToken);
    const panel = await browser.page("sidepanel.html");
    await panel.locator(`[data-ask-row="${commentedId}"]`).waitFor({ timeout: STEP_MS });

    const open = (id: string, comments: number) => panel.evaluate(openAndTime, [id, diffFiles, comments, STEP_MS] as [string, number, number, number]);
    const cold = await open(askId, 0);
    const diffFilesDrawn = await panel.locator("[data-block=diff] .d2h-file-wrapper").count();
    await backToList(panel);
    await open(commentedId, 0);
    // The comments are the person's draft, kept while they go back to the list and open the ask again.
    await comment(panel, commentedId, comments);
    // Opened in turn, so a change in the machine's load falls on both alike.
    const times: number[] = [];
    const commented: number[] = [];
    for (let i = 0; i < opts.runs; i++) {
      await backToList(panel);
      times.push((await open(askId, 0)).complete);
      await backToList(panel);
      commented.push((await open(commentedId, comments)).complete);
    }
    const round = (x: number) => Math.round(x * 10) / 10;
    return {
      p50: round(percentile(times, 50)),
      p99: round(percentile(times, 99)),
      runs: times.length,
      cold: round(cold.complete),
      coldInView: round(cold.inView),
      withComments: { p50: round(percentile(commented, 50)), p99: round(percentile(commented, 99)), runs: commented.length, comments },
      shape: { inputBytes, diffBytes, diffFiles, diffFilesDrawn, codeLines: CODE_LINES },
    };
  } finally {
    await agent?.close().catch(() => {});
    // Launched even when the asking failed: closed all the same.
    await (await launching.catch(() => undefined))?.close().catch(() => {});
    await relay.dispose();
  }
}

if (import.meta.main) {
  const runs = Number(process.argv[2] ?? 20);
  console.log(await benchSidepanel({ runs }));
}
