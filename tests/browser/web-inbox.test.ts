// The web inbox the relay serves at /inbox/: the same Svelte inbox as the side panel, signed in
// with a person's token and live through its own event socket, at desktop and at phone width.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { TestAgent } from "./harness/agent";
import { TestBrowser, ensureBuilt } from "./harness/browser";
import { RelayProcess } from "../support/relay-process.ts";
import { row } from "./harness/panel-scene";
import { STEP_MS } from "./harness/timeouts";

const PHONE = { width: 390, height: 844 };

let relay: RelayProcess;
let browser: TestBrowser;
let agent: TestAgent;
let page: Page;
let personToken: string;
let agentToken: string;

describe("the web inbox", () => {
  beforeAll(async () => {
    await ensureBuilt();
    relay = await new RelayProcess({ firstPerson: "Grace" }).start();
    personToken = await relay.token("Grace");
    agentToken = await relay.token("Grace", { agent: true });
    browser = await TestBrowser.plain();
    agent = await TestAgent.connect(relay.url, agentToken);
  }, 120_000);

  afterAll(async () => {
    await agent?.close().catch(() => {});
    await browser?.close();
    await relay?.dispose();
  });

  test("signs in with a person's token, kept in this origin's storage", async () => {
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1200, height: 800 });
    await page.goto(`${relay.url}/inbox/`);
    await page.fill("#token", "lbp_wrong");
    await page.getByRole("button", { name: "Sign in" }).click();
    expect(await page.getByRole("alert").textContent({ timeout: STEP_MS })).toContain("does not know this token");
    // An agent's token is known to the relay but cannot answer: refused at sign-in, not at Send.
    await page.fill("#token", agentToken);
    await page.getByRole("button", { name: "Sign in" }).click();
    expect(await page.getByRole("alert").textContent({ timeout: STEP_MS })).toContain("This is an agent's token");
    expect(await page.evaluate(() => localStorage.getItem("loopback.token"))).toBeNull();
    await page.fill("#token", personToken);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.locator("[data-connection=live]").waitFor({ timeout: STEP_MS });
    expect(await page.evaluate(() => localStorage.getItem("loopback.token"))).toBe(personToken);
    await page.reload();
    await page.locator("[data-connection=live]").waitFor({ timeout: STEP_MS });
  }, 60_000);

  test("is installable: a manifest with icons, served beside the page", async () => {
    const href = await page.locator("link[rel=manifest]").getAttribute("href");
    const manifest = await (await fetch(new URL(href!, `${relay.url}/inbox/`))).json();
    expect(manifest).toMatchObject({ name: "Loopback", display: "standalone", start_url: "./" });
    for (const icon of manifest.icons) {
      const response = await fetch(new URL(icon.src, `${relay.url}/inbox/`));
      expect(response.headers.get("content-type")).toContain("image/png");
    }
  });

  test("an agent's question appears live and is answered by keyboard", async () => {
    const waiting = agent.waitFor("ask_question", {
      question: "Name the new flag?",
      options: [{ label: "fast-path" }, { label: "turbo" }],
      project: "web",
    });
    await row(page, "Name the new flag?").waitFor({ timeout: STEP_MS });
    await page.keyboard.press("Enter");
    await page.locator("article[data-ask]").waitFor({ timeout: STEP_MS });
    await page.keyboard.press("1");
    await page.keyboard.press("r");
    await page.keyboard.type("Keep it lowercase.");
    await page.keyboard.press("Control+Enter");
    expect((await waiting).reply).toEqual({ outcome: "answered", selected: ["fast-path"], text: "Keep it lowercase." });
  }, 60_000);

  test("opens a deep link to an ask at phone width and approves it", async () => {
    const waiting = agent.waitFor("request_review", {
      title: "Copy for the empty state",
      content: [{ type: "markdown", text: "Nothing needs you right now." }],
      project: "web",
    });
    const id = await row(page, "Copy for the empty state").getAttribute("data-ask-row", { timeout: STEP_MS });
    const phone = await browser.context.newPage();
    await phone.setViewportSize(PHONE);
    await phone.goto(`${relay.url}/inbox/#/ask/${id}`);
    await phone.locator(`article[data-ask="${id}"]`).waitFor({ timeout: STEP_MS });
    // At phone width the ask has the screen to itself, and nothing spills sideways.
    expect(await phone.locator(".list-pane").count()).toBe(0);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await phone.getByRole("button", { name: /Approve/ }).click();
    await phone.locator("[data-held=undo]").getByRole("button", { name: "Send now" }).click();
    expect((await waiting).reply).toEqual({ outcome: "approved" });
    await phone.getByRole("button", { name: "Inbox", exact: true }).click();
    await row(phone, "Copy for the empty state").waitFor({ timeout: STEP_MS });
    await phone.close();
  }, 60_000);

  test("reconnects after the relay restarts and shows what arrived meanwhile", async () => {
    await agent.close();
    await relay.stop();
    await page.locator("[data-connection=wait]").waitFor({ timeout: STEP_MS });
    await relay.start();
    agent = await TestAgent.connect(relay.url, agentToken);
    const waiting = agent.waitFor("ask_question", { question: "Still there after the restart?", project: "web" });
    await row(page, "Still there after the restart?").waitFor({ timeout: 45_000 });
    await row(page, "Still there after the restart?").click();
    await page.keyboard.press("d");
    await page.getByRole("alertdialog").getByRole("button", { name: "Dismiss" }).click();
    expect((await waiting).reply).toEqual({ outcome: "dismissed" });
  }, 90_000);

  test("reloads itself when the relay answers 409 reload", async () => {
    const fresh = await browser.context.newPage();
    let loads = 0;
    fresh.on("framenavigated", (frame) => frame === fresh.mainFrame() && loads++);
    let refused = false;
    // The relay is real; only its first ticket answer is swapped for what a rolled-back relay says.
    await fresh.route("**/api/v1/events/tickets", async (route) => {
      if (refused) return route.continue();
      refused = true;
      await route.fulfill({
        status: 409,
        contentType: "application/json",
        headers: { "Loopback-Revision": "1" },
        body: JSON.stringify({ code: "reload", message: "This relay writes an older revision than your client: it was rolled back." }),
      });
    });
    await fresh.goto(`${relay.url}/inbox/`);
    // The reload is the page's own answer to the 409: wait for it, then for the reloaded page to go live.
    const deadline = Date.now() + STEP_MS;
    while (loads < 2 && Date.now() < deadline) await Bun.sleep(25);
    await fresh.locator("[data-connection=live]").waitFor({ timeout: STEP_MS });
    expect(refused).toBe(true);
    expect(loads).toBeGreaterThanOrEqual(2);
    await fresh.close();
  }, 60_000);
});
