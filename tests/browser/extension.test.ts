// The extension in real Chromium against a real relay, driven the way a person and an agent would:
// connect through the options page, then answer what an MCP agent asks from the side panel.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { badgeText } from "./harness/browser";
import { PanelScene } from "./harness/panel-scene";
import { STEP_MS } from "./harness/timeouts";
import { ROOT } from "../support/relay-process.ts";

const PNG = new Uint8Array(readFileSync(join(ROOT, "extension/public/icon/128.png")));
const SCREENSHOT = join(ROOT, "docs/screenshot-review.png");

const scene = new PanelScene();
const row = (title: string) => scene.row(title);

/** Back to the list once the reply on `id` is taken: the ask shows it, or the next one waiting opens. */
async function backToList(id: string) {
  await scene.panel.locator(`article[data-ask="${id}"][data-status=awaiting_human]`).waitFor({ state: "detached", timeout: STEP_MS });
  await scene.toList();
}

async function waitForBadge(text: string) {
  const deadline = Date.now() + STEP_MS;
  while ((await badgeText(scene.panel)) !== text) {
    if (Date.now() > deadline) throw new Error(`badge is "${await badgeText(scene.panel)}", expected "${text}"`);
    await Bun.sleep(100);
  }
}

describe("the extension", () => {
  beforeAll(() => scene.start(), 120_000);
  afterAll(() => scene.close());

  test("connects through the options page, naming who and which space", async () => {
    await scene.browser.allowHost(scene.relay.url);
    const options = await scene.browser.page("options.html", { width: 800, height: 700 });
    await options.fill("#relay", scene.relay.url);
    await options.fill("#token", "lbp_not-a-real-token");
    await options.click("text=Test connection");
    expect(await options.locator("[data-result=error]").textContent({ timeout: STEP_MS })).toContain("401");
    // An agent's token is known to the relay but cannot answer: refused here, not at the first reply.
    await options.fill("#token", await scene.relay.token("Ada", { agent: true }));
    await options.click("text=Test connection");
    expect(await options.locator("[data-result=error]").textContent({ timeout: STEP_MS })).toContain("This is an agent's token");

    await options.fill("#token", scene.personToken);
    await options.click("text=Save and connect");
    const result = await options.locator("[data-result=ok]").textContent({ timeout: STEP_MS });
    expect(result).toContain("Ada");
    expect(result).toContain("default");
    // The token lives in extension storage, and nowhere a web page could read it.
    const stored = await options.evaluate(() => chrome.storage.local.get("token"));
    expect(stored.token).toBe(scene.personToken);
    expect(await options.evaluate(() => JSON.stringify(localStorage))).not.toContain(scene.personToken);
    await options.close();

    scene.panel = await scene.browser.page("sidepanel.html");
    await scene.panel.locator("[data-connection=live]").waitFor({ timeout: STEP_MS });
  }, 60_000);

  test("an agent's question appears in the list and the badge counts it", async () => {
    const waiting = scene.agent.waitFor("ask_question", {
      question: "Which database should the cache use?",
      options: [{ label: "Redis" }, { label: "SQLite", description: "Already a dependency" }, { label: "Memory" }],
      project: "inventory",
    });
    await row("Which database should the cache use?").waitFor({ timeout: STEP_MS });
    expect(await row("Which database").textContent()).toContain("inventory");
    await waitForBadge("1");

    // Answered by keyboard alone: open the first ask, pick the second choice, send.
    await scene.panel.keyboard.press("Enter");
    const id = await scene.panel.locator("article[data-ask]").getAttribute("data-ask", { timeout: STEP_MS });
    await scene.panel.keyboard.press("2");
    await scene.panel.keyboard.press("Control+Enter");
    const reply = await waiting;
    expect(reply.reply).toEqual({ outcome: "answered", selected: ["SQLite"] });
    await waitForBadge("");
    await backToList(id!);
  }, 60_000);

  test("a review with code, a diff and an image renders, and is approved", async () => {
    const image = await scene.agent.uploadImage(PNG, "The new toolbar icon");
    const waiting = scene.agent.waitFor("request_review", {
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
    const id = await scene.open("Cache reads through SQLite");
    const article = scene.panel.locator(`article[data-ask="${id}"]`);
    await article.locator(".highlighted pre.shiki").waitFor({ timeout: STEP_MS });
    // A line longer than the panel is wide wraps beneath itself, as the diff's lines do, rather than
    // being cut off or hidden to the right.
    const code = await article.locator(".highlighted pre.shiki").evaluate((pre) => ({
      sideways: pre.scrollWidth > pre.clientWidth + 1,
      wrapped: [...pre.querySelectorAll(".line")].some((line) => line.getBoundingClientRect().height > parseFloat(getComputedStyle(line).lineHeight) * 1.5),
    }));
    expect(code).toEqual({ sideways: false, wrapped: true });
    await article.locator(".d2h-file-wrapper").waitFor({ timeout: STEP_MS });
    const img = article.locator("img[src^='blob:']");
    await img.waitFor({ timeout: STEP_MS });
    await scene.panel.waitForFunction((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0, await img.elementHandle(), { timeout: STEP_MS });
    expect(await article.locator(".summary strong").textContent()).toBe("prepared statement");

    await scene.panel.screenshot({ path: SCREENSHOT });

    await scene.panel.keyboard.press("a");
    const reply = await waiting;
    expect(reply.reply).toEqual({ outcome: "approved" });
    await backToList(id);
  }, 60_000);

  test("a briefing is answered point by point over two rounds", async () => {
    const firstRound = scene.agent.waitFor("send_briefing", {
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
    const id = await scene.open("Why the nightly import is slow");
    const point = (pid: string) => scene.panel.locator(`[data-point="${pid}"]`);
    await point("1").locator("button.head").click();
    await scene.panel.getByLabel("Reply on point 1").fill("Batch them: how large a batch?");
    await point("2").locator("button.head").click();
    await point("2").getByRole("checkbox").check();
    await point("3").locator("button.head").click();
    await scene.panel.getByLabel("Reply on point 3").fill("Where is the second resize?");
    await scene.panel.getByRole("button", { name: "Send replies" }).click();

    const round1 = await firstRound;
    expect(round1.reply).toEqual({
      outcome: "responded",
      points: [
        { point: "1", text: "Batch them: how large a batch?" },
        { point: "2", resolved: true },
        { point: "3", text: "Where is the second resize?" },
      ],
    });
    await scene.panel.locator(`article[data-ask="${id}"][data-status=awaiting_agent]`).waitFor({ timeout: STEP_MS });

    const secondRound = scene.agent.waitFor("answer_briefing", {
      askId: id,
      answers: [
        { point: "1", answer: "Batches of **500** keep memory flat." },
        { point: "3", answer: "In the upload hook and again in the thumbnailer.", points: [{ title: "Drop the hook's resize" }] },
      ],
    });
    await scene.panel.locator(`article[data-ask="${id}"][data-status=awaiting_human]`).waitFor({ timeout: STEP_MS });
    expect(await point("1").textContent()).toContain("Batches of 500");
    await point("3.1").waitFor({ timeout: STEP_MS });
    await scene.panel.getByRole("button", { name: "Resolve all" }).click();
    await scene.panel.getByRole("button", { name: "Send replies" }).click();

    const round2 = await secondRound;
    expect(round2.reply).toEqual({ outcome: "responded", points: [{ point: "1", resolved: true }, { point: "3", resolved: true }] });
    await scene.panel.locator(`article[data-ask="${id}"][data-status=closed]`).waitFor({ timeout: STEP_MS });
    await backToList(id);
  }, 90_000);

  test("a notification's buttons answer a two-option question and approve a review, and the agent's call returns", async () => {
    const shown = async (askId: string) => {
      const deadline = Date.now() + STEP_MS;
      for (;;) {
        const worker = await scene.browser.worker();
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

    const question = scene.agent.waitFor("ask_question", { question: "Deploy to staging first?", options: [{ label: "Staging" }, { label: "Straight to prod" }], project: "notify" });
    const questionId = await row("Deploy to staging first?").getAttribute("data-ask-row", { timeout: STEP_MS });
    const q = await shown(questionId!);
    expect(q.id).toBe(`ask:${questionId}:choices`);
    await press(q.worker, q.id, 1);
    expect((await question).reply).toEqual({ outcome: "answered", selected: ["Straight to prod"] });

    const review = scene.agent.waitFor("request_review", { title: "Bump the cache size", content: [{ type: "markdown", text: "From 64 to 128 MiB." }], project: "notify" });
    const reviewId = await row("Bump the cache size").getAttribute("data-ask-row", { timeout: STEP_MS });
    const r = await shown(reviewId!);
    expect(r.id).toBe(`ask:${reviewId}:review`);
    await press(r.worker, r.id, 0);
    expect((await review).reply).toEqual({ outcome: "approved" });

    // Both were answered: neither notification stays.
    const deadline = Date.now() + STEP_MS;
    for (;;) {
      const ids = Object.keys(await (await scene.browser.worker()).evaluate(() => chrome.notifications.getAll()));
      if (!ids.some((n) => n.includes(questionId!) || n.includes(reviewId!))) break;
      if (Date.now() > deadline) throw new Error(`notifications stayed: ${ids.join(", ")}`);
      await Bun.sleep(100);
    }
    await waitForBadge("");
  }, 60_000);

  test("a notification of an ask answered elsewhere disappears", async () => {
    const question = scene.agent.waitFor("ask_question", { question: "Answered on the phone?", project: "notify" });
    const askId = await row("Answered on the phone?").getAttribute("data-ask-row", { timeout: STEP_MS });
    const listed = async () => Object.keys(await (await scene.browser.worker()).evaluate(() => chrome.notifications.getAll())).filter((n) => n.includes(askId!));
    const deadline = Date.now() + STEP_MS;
    while (!(await listed()).length) {
      if (Date.now() > deadline) throw new Error("no notification shown");
      await Bun.sleep(100);
    }
    const answered = await fetch(`${scene.relay.url}/api/v1/asks/${askId}/reply`, {
      method: "POST",
      headers: { Authorization: `Bearer ${scene.personToken}`, "Content-Type": "application/json" },
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
    await scene.agent.close();
    await scene.relay.stop();
    await scene.panel.locator("[data-connection=wait]").waitFor({ timeout: STEP_MS });
    await scene.relay.start();
    await scene.reconnectAgent();
    const duringDrop = scene.agent.waitFor("ask_question", { question: "Asked right after the relay came back?", project: "inventory" });
    await row("Asked right after the relay came back?").waitFor({ timeout: 45_000 });
    await scene.panel.locator("[data-connection=live]").waitFor({ timeout: STEP_MS });

    // Chrome stops the worker; asks arrive while nothing listens.
    const before = await scene.browser.worker();
    await before.evaluate(() => ((globalThis as { lifetime?: string }).lifetime = "before the stop"));
    await scene.browser.stopWorker(scene.panel);
    const whileStopped = scene.agent.waitFor("ask_question", { question: "Asked while the worker was stopped?", project: "billing" });
    const review = scene.agent.waitFor("request_review", { title: "Also sent while stopped", content: [{ type: "markdown", text: "Hi" }], project: "billing" });
    await Bun.sleep(500);
    // Opening the panel (or the 30 s alarm) wakes it; it reconnects and the snapshot fills the gap.
    await scene.panel.evaluate(() => chrome.runtime.sendMessage({ type: "wake" }));
    // A new worker: whatever the old one held in memory is gone.
    const after = await scene.browser.worker();
    expect(await after.evaluate(() => (globalThis as { lifetime?: string }).lifetime)).toBeUndefined();
    await row("Asked while the worker was stopped?").waitFor({ timeout: STEP_MS });
    await row("Also sent while stopped").waitFor({ timeout: STEP_MS });
    await waitForBadge("3");

    // Each still answers through to its agent.
    const stoppedId = await scene.open("Asked while the worker was stopped?");
    await scene.panel.getByLabel("Your own words").fill("Nothing was lost.");
    await scene.panel.keyboard.press("Control+Enter");
    expect((await whileStopped).reply).toEqual({ outcome: "answered", selected: [], text: "Nothing was lost." });
    await backToList(stoppedId);
    const reviewId = await scene.open("Also sent while stopped");
    await scene.panel.keyboard.press("a");
    expect((await review).reply).toEqual({ outcome: "approved" });
    await backToList(reviewId);
    await scene.open("Asked right after the relay came back?");
    await scene.panel.keyboard.press("d");
    await scene.panel.getByRole("alertdialog").getByRole("button", { name: "Dismiss" }).click();
    expect((await duringDrop).reply).toEqual({ outcome: "dismissed" });
    await waitForBadge("");
  }, 120_000);
});
