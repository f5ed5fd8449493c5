// The extension in real Chromium against a real relay, driven the way a person and an agent would:
// connect through the options page, then answer what an MCP agent asks from the side panel.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { TestAgent } from "./harness/agent";
import { TestBrowser, badgeText, ensureBuilt } from "./harness/browser";
import { ROOT, RelayProcess } from "../support/relay-process.ts";

const PNG = new Uint8Array(readFileSync(join(ROOT, "extension/public/icon/128.png")));
const SCREENSHOT = join(ROOT, "docs/screenshot-review.png");
const STEP_MS = 15_000;

let relay: RelayProcess;
let browser: TestBrowser;
let agent: TestAgent;
let panel: Page;
let personToken: string;
let agentToken: string;

const row = (title: string) => panel.locator("[data-ask-row]", { hasText: title });

async function openFromList(title: string): Promise<string> {
  const id = await row(title).getAttribute("data-ask-row", { timeout: STEP_MS });
  await row(title).click();
  await panel.locator(`article[data-ask="${id}"]`).waitFor({ timeout: STEP_MS });
  return id!;
}

/**
 * Back to the list once the reply on `id` is taken: the ask shows it, or the next one waiting opens.
 * Escape first leaves a text box, if one has the focus.
 */
async function backToList(id: string) {
  await panel.locator(`article[data-ask="${id}"][data-status=awaiting_human]`).waitFor({ state: "detached", timeout: STEP_MS });
  for (let i = 0; i < 2 && !(await panel.locator(".list-pane").count()); i++) await panel.keyboard.press("Escape");
  await panel.locator(".list-pane").waitFor({ timeout: STEP_MS });
}

async function waitForBadge(text: string) {
  const deadline = Date.now() + STEP_MS;
  while ((await badgeText(panel)) !== text) {
    if (Date.now() > deadline) throw new Error(`badge is "${await badgeText(panel)}", expected "${text}"`);
    await Bun.sleep(100);
  }
}

describe("the extension", () => {
  beforeAll(async () => {
    await ensureBuilt();
    relay = await new RelayProcess().start();
    personToken = await relay.token("Ada");
    agentToken = await relay.token("Ada", { agent: true });
    browser = await TestBrowser.withExtension();
    agent = await TestAgent.connect(relay.url, agentToken);
  }, 120_000);

  afterAll(async () => {
    await agent?.close().catch(() => {});
    await browser?.close();
    await relay?.dispose();
  });

  test("connects through the options page, naming who and which space", async () => {
    await browser.allowHost(relay.url);
    const options = await browser.page("options.html", { width: 800, height: 700 });
    await options.fill("#relay", relay.url);
    await options.fill("#token", "lbp_not-a-real-token");
    await options.click("text=Test connection");
    await expect(options.locator("[data-result=error]").textContent({ timeout: STEP_MS })).resolves.toContain("401");

    await options.fill("#token", personToken);
    await options.click("text=Save and connect");
    const result = await options.locator("[data-result=ok]").textContent({ timeout: STEP_MS });
    expect(result).toContain("Ada");
    expect(result).toContain("default");
    // The token lives in extension storage, and nowhere a web page could read it.
    const stored = await options.evaluate(() => chrome.storage.local.get("token"));
    expect(stored.token).toBe(personToken);
    expect(await options.evaluate(() => JSON.stringify(localStorage))).not.toContain(personToken);
    await options.close();

    panel = await browser.page("sidepanel.html");
    await panel.locator("[data-connection=live]").waitFor({ timeout: STEP_MS });
  }, 60_000);

  test("an agent's question appears in the list and the badge counts it", async () => {
    const waiting = agent.waitFor("ask_question", {
      question: "Which database should the cache use?",
      options: [{ label: "Redis" }, { label: "SQLite", description: "Already a dependency" }, { label: "Memory" }],
      project: "inventory",
    });
    await row("Which database should the cache use?").waitFor({ timeout: STEP_MS });
    expect(await row("Which database").textContent()).toContain("inventory");
    await waitForBadge("1");

    // Answered by keyboard alone: open the first ask, pick the second choice, send.
    await panel.keyboard.press("Enter");
    const id = await panel.locator("article[data-ask]").getAttribute("data-ask", { timeout: STEP_MS });
    await panel.keyboard.press("2");
    await panel.keyboard.press("Control+Enter");
    const reply = await waiting;
    expect(reply.reply).toEqual({ outcome: "answered", selected: ["SQLite"] });
    await waitForBadge("");
    await backToList(id!);
  }, 60_000);

  test("a review with code, a diff and an image renders, and is approved", async () => {
    const image = await agent.uploadImage(PNG, "The new toolbar icon");
    const waiting = agent.waitFor("request_review", {
      title: "Cache reads through SQLite",
      summary: "Reads go through a **prepared statement**; writes stay as they were.",
      project: "inventory",
      content: [
        {
          type: "code",
          language: "ts",
          filename: "src/cache.ts",
          code: [
            'import { Database } from "bun:sqlite";',
            "",
            "/** Reads an entry, or null when it expired. */",
            "export function read(db: Database, key: string): string | null {",
            '  const row = db.query("SELECT value, expires FROM cache WHERE key = ?").get(key) as Row | null;',
            "  return row && row.expires > Date.now() ? row.value : null;",
            "}",
          ].join("\n"),
        },
        {
          type: "diff",
          diff: [
            "diff --git a/src/store.ts b/src/store.ts",
            "--- a/src/store.ts",
            "+++ b/src/store.ts",
            "@@ -10,6 +10,7 @@ export class Store {",
            "   get(key: string) {",
            "-    return this.map.get(key);",
            "+    const hit = read(this.db, key);",
            "+    return hit ?? this.map.get(key);",
            "   }",
            " ",
            "   set(key: string, value: string) {",
          ].join("\n"),
        },
        image,
      ],
    });
    const id = await openFromList("Cache reads through SQLite");
    const article = panel.locator(`article[data-ask="${id}"]`);
    await article.locator(".highlighted pre.shiki").waitFor({ timeout: STEP_MS });
    // A line longer than the panel is wide scrolls the code box rather than being cut off.
    expect(await article.locator(".highlighted pre.shiki").evaluate((pre) => pre.scrollWidth > pre.clientWidth)).toBe(true);
    await article.locator(".d2h-file-wrapper").waitFor({ timeout: STEP_MS });
    const img = article.locator("img[src^='blob:']");
    await img.waitFor({ timeout: STEP_MS });
    await panel.waitForFunction((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0, await img.elementHandle(), { timeout: STEP_MS });
    expect(await article.locator(".summary strong").textContent()).toBe("prepared statement");

    await panel.screenshot({ path: SCREENSHOT });

    await panel.keyboard.press("a");
    const reply = await waiting;
    expect(reply.reply).toEqual({ outcome: "approved" });
    await backToList(id);
  }, 60_000);

  test("a briefing is answered point by point over two rounds", async () => {
    const firstRound = agent.waitFor("send_briefing", {
      title: "Why the nightly import is slow",
      summary: "Three findings from profiling last night's run.",
      project: "inventory",
      sections: [
        {
          title: "Findings",
          points: [
            { title: "Each row opens its own transaction", detail: "12 000 commits per run." },
            { title: "The SKU index is missing" },
            { title: "Images are resized twice" },
          ],
        },
      ],
    });
    const id = await openFromList("Why the nightly import is slow");
    const point = (pid: string) => panel.locator(`[data-point="${pid}"]`);
    await point("1").locator("button.head").click();
    await panel.getByLabel("Reply on point 1").fill("Batch them: how large a batch?");
    await point("2").locator("button.head").click();
    await point("2").getByRole("checkbox").check();
    await point("3").locator("button.head").click();
    await panel.getByLabel("Reply on point 3").fill("Where is the second resize?");
    await panel.getByRole("button", { name: "Send replies" }).click();

    const round1 = await firstRound;
    expect(round1.reply).toEqual({
      outcome: "responded",
      points: [
        { point: "1", text: "Batch them: how large a batch?" },
        { point: "2", resolved: true },
        { point: "3", text: "Where is the second resize?" },
      ],
    });
    await panel.locator(`article[data-ask="${id}"][data-status=awaiting_agent]`).waitFor({ timeout: STEP_MS });

    const secondRound = agent.waitFor("answer_briefing", {
      askId: id,
      answers: [
        { point: "1", answer: "Batches of **500** keep memory flat." },
        { point: "3", answer: "In the upload hook and again in the thumbnailer.", points: [{ title: "Drop the hook's resize" }] },
      ],
    });
    await panel.locator(`article[data-ask="${id}"][data-status=awaiting_human]`).waitFor({ timeout: STEP_MS });
    await expect(point("1").textContent()).resolves.toContain("Batches of 500");
    await point("3.1").waitFor({ timeout: STEP_MS });
    await panel.getByRole("button", { name: "Resolve all" }).click();
    await panel.getByRole("button", { name: "Send replies" }).click();

    const round2 = await secondRound;
    expect(round2.reply).toEqual({ outcome: "responded", points: [{ point: "1", resolved: true }, { point: "3", resolved: true }] });
    await panel.locator(`article[data-ask="${id}"][data-status=closed]`).waitFor({ timeout: STEP_MS });
    await backToList(id);
  }, 90_000);

  test("a notification's buttons answer a two-option question and approve a review, and the agent's call returns", async () => {
    const shown = async (askId: string) => {
      const deadline = Date.now() + STEP_MS;
      for (;;) {
        const worker = await browser.worker();
        const ids = Object.keys(await worker.evaluate(() => chrome.notifications.getAll()));
        const id = ids.find((n) => n.startsWith(`ask:${askId}:`));
        if (id) return { worker, id, ids };
        if (Date.now() > deadline) throw new Error(`no notification for ${askId}: ${ids.join(", ")}`);
        await Bun.sleep(100);
      }
    };
    // Playwright cannot click a system notification. Chrome tells the worker of a click by dispatching
    // its notifications.onButtonClicked event; the test dispatches that same event, so the worker's
    // own registered listener runs, as it does for the person's click.
    const press = (worker: Awaited<ReturnType<typeof shown>>["worker"], id: string, index: number) =>
      worker.evaluate(([n, i]) => (chrome.notifications.onButtonClicked as unknown as { dispatch(id: string, index: number): void }).dispatch(n as string, i as number), [id, index] as const);

    const question = agent.waitFor("ask_question", { question: "Deploy to staging first?", options: [{ label: "Staging" }, { label: "Straight to prod" }], project: "notify" });
    const questionId = await row("Deploy to staging first?").getAttribute("data-ask-row", { timeout: STEP_MS });
    const q = await shown(questionId!);
    expect(q.id).toBe(`ask:${questionId}:choices`);
    await press(q.worker, q.id, 1);
    expect((await question).reply).toEqual({ outcome: "answered", selected: ["Straight to prod"] });

    const review = agent.waitFor("request_review", { title: "Bump the cache size", content: [{ type: "markdown", text: "From 64 to 128 MiB." }], project: "notify" });
    const reviewId = await row("Bump the cache size").getAttribute("data-ask-row", { timeout: STEP_MS });
    const r = await shown(reviewId!);
    expect(r.id).toBe(`ask:${reviewId}:review`);
    await press(r.worker, r.id, 0);
    expect((await review).reply).toEqual({ outcome: "approved" });

    // Both were answered: neither notification stays.
    const deadline = Date.now() + STEP_MS;
    for (;;) {
      const ids = Object.keys(await (await browser.worker()).evaluate(() => chrome.notifications.getAll()));
      if (!ids.some((n) => n.includes(questionId!) || n.includes(reviewId!))) break;
      if (Date.now() > deadline) throw new Error(`notifications stayed: ${ids.join(", ")}`);
      await Bun.sleep(100);
    }
    await waitForBadge("");
  }, 60_000);

  test("a notification of an ask answered elsewhere disappears", async () => {
    const question = agent.waitFor("ask_question", { question: "Answered on the phone?", project: "notify" });
    const askId = await row("Answered on the phone?").getAttribute("data-ask-row", { timeout: STEP_MS });
    const listed = async () => Object.keys(await (await browser.worker()).evaluate(() => chrome.notifications.getAll())).filter((n) => n.includes(askId!));
    const deadline = Date.now() + STEP_MS;
    while (!(await listed()).length) {
      if (Date.now() > deadline) throw new Error("no notification shown");
      await Bun.sleep(100);
    }
    const answered = await fetch(`${relay.url}/api/v1/asks/${askId}/reply`, {
      method: "POST",
      headers: { Authorization: `Bearer ${personToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ outcome: "dismissed" }),
    });
    expect(answered.status).toBe(200);
    expect((await question).reply).toEqual({ outcome: "dismissed" });
    while ((await listed()).length) {
      if (Date.now() > deadline + STEP_MS) throw new Error("the notification stayed");
      await Bun.sleep(100);
    }
  }, 60_000);

  test("misses nothing when the socket drops and the worker is stopped", async () => {
    // The relay goes away and comes back: every socket drops, and the worker reconnects by itself.
    await agent.close();
    await relay.stop();
    await panel.locator("[data-connection=wait]").waitFor({ timeout: STEP_MS });
    await relay.start();
    agent = await TestAgent.connect(relay.url, agentToken);
    const duringDrop = agent.waitFor("ask_question", { question: "Asked right after the relay came back?", project: "inventory" });
    await row("Asked right after the relay came back?").waitFor({ timeout: 45_000 });
    await panel.locator("[data-connection=live]").waitFor({ timeout: STEP_MS });

    // Chrome stops the worker; asks arrive while nothing listens.
    const before = await browser.worker();
    await before.evaluate(() => ((globalThis as { lifetime?: string }).lifetime = "before the stop"));
    await browser.stopWorker(panel);
    const whileStopped = agent.waitFor("ask_question", { question: "Asked while the worker was stopped?", project: "billing" });
    const review = agent.waitFor("request_review", { title: "Also sent while stopped", content: [{ type: "markdown", text: "Hi" }], project: "billing" });
    await Bun.sleep(500);
    // Opening the panel (or the 30 s alarm) wakes it; it reconnects and the snapshot fills the gap.
    await panel.evaluate(() => chrome.runtime.sendMessage({ type: "wake" }));
    // A new worker: whatever the old one held in memory is gone.
    const after = await browser.worker();
    expect(await after.evaluate(() => (globalThis as { lifetime?: string }).lifetime)).toBeUndefined();
    await row("Asked while the worker was stopped?").waitFor({ timeout: STEP_MS });
    await row("Also sent while stopped").waitFor({ timeout: STEP_MS });
    await waitForBadge("3");

    // Each still answers through to its agent.
    const stoppedId = await openFromList("Asked while the worker was stopped?");
    await panel.getByLabel("Your own words").fill("Nothing was lost.");
    await panel.keyboard.press("Control+Enter");
    expect((await whileStopped).reply).toEqual({ outcome: "answered", selected: [], text: "Nothing was lost." });
    await backToList(stoppedId);
    const reviewId = await openFromList("Also sent while stopped");
    await panel.keyboard.press("a");
    expect((await review).reply).toEqual({ outcome: "approved" });
    await backToList(reviewId);
    await openFromList("Asked right after the relay came back?");
    await panel.keyboard.press("d");
    await panel.getByRole("alertdialog").getByRole("button", { name: "Dismiss" }).click();
    expect((await duringDrop).reply).toEqual({ outcome: "dismissed" });
    await waitForBadge("");
  }, 120_000);
});
