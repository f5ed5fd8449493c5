// The Firefox build in real Firefox (Debian's firefox-esr, over WebDriver BiDi) against a real
// relay and a real MCP agent: connect through the options page the extension opens on install,
// see an ask arrive in the panel and on the badge, answer it, and the agent's call returns.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ElementHandle, Page } from "puppeteer-core";
import { RelayProcess } from "../support/relay-process.ts";
import { TestAgent } from "./harness/agent";
import { ensureBuilt } from "./harness/browser";
import { TestFirefox } from "./harness/firefox";
import { STEP_MS } from "./harness/timeouts";

let relay: RelayProcess;
let firefox: TestFirefox;
let agent: TestAgent;
let panel: Page;
let personToken: string;

/**
 * Waits for an element matching `selector` (and containing `text`, when given) and returns it.
 * Polled by hand: puppeteer's own waits do not see the extension's pages over BiDi.
 */
async function find(page: Page, selector: string, text = "") {
  const deadline = Date.now() + STEP_MS;
  for (;;) {
    const handle = await page.evaluateHandle(
      (sel, t) => [...document.querySelectorAll<HTMLElement>(sel)].find((el) => el.textContent?.includes(t)) ?? null,
      selector,
      text,
    );
    // The page function returns an HTMLElement or null, so the handle is an element's.
    const element = handle.asElement() as ElementHandle<HTMLElement> | null;
    if (element) return element;
    if (Date.now() > deadline) throw new Error(`nothing matched ${selector}${text ? ` with "${text}"` : ""}`);
    await Bun.sleep(100);
  }
}

async function waitForBadge(text: string) {
  const deadline = Date.now() + STEP_MS;
  while ((await firefox.badgeText()) !== text) {
    if (Date.now() > deadline) throw new Error(`badge is "${await firefox.badgeText()}", expected "${text}"`);
    await Bun.sleep(100);
  }
}

describe("the extension in Firefox", () => {
  beforeAll(async () => {
    await ensureBuilt();
    relay = await new RelayProcess().start();
    personToken = await relay.token("Ada");
    agent = await TestAgent.connect(relay.url, await relay.token("Ada", { agent: true }));
    firefox = await TestFirefox.withExtension();
  }, 120_000);

  afterAll(async () => {
    await agent?.close().catch(() => {});
    await firefox?.close();
    await relay?.dispose();
  });

  test("opens its options page on install and connects from it", async () => {
    const options = firefox.options;
    await options.locator("#relay").fill(relay.url);
    await options.locator("#token").fill(personToken);
    await options.locator("button[type=submit]").click();
    const result = await find(options, "[data-result=ok]");
    expect(await result.evaluate((el) => el.textContent)).toContain("Ada");
    expect(await firefox.storedToken()).toBe(personToken);

    panel = await firefox.openPanel();
    await find(panel, "[data-connection=live]");
  }, 60_000);

  test("an agent's question arrives in the panel and on the badge, and the answer returns to the agent", async () => {
    const waiting = agent.waitFor("ask_question", {
      question: "Which database should the cache use?",
      options: [{ label: "Redis" }, { label: "SQLite", description: "Already a dependency" }],
      project: "inventory",
    });
    const row = await find(panel, "[data-ask-row]", "Which database should the cache use?");
    expect(await row.evaluate((el) => el.textContent)).toContain("inventory");
    await waitForBadge("1");

    await row.click();
    await find(panel, "article[data-ask]");
    await (await find(panel, "button.choice", "SQLite")).click();
    await panel.locator("textarea").fill("It is already there.");
    await (await find(panel, "[data-ask-dock] button.btn", "Send answer")).click();
    expect((await waiting).reply).toEqual({ outcome: "answered", selected: ["SQLite"], text: "It is already there." });
    await waitForBadge("");
  }, 60_000);

  test("a review is approved from the panel", async () => {
    const waiting = agent.waitFor("request_review", {
      title: "Cache reads through SQLite",
      content: [
        { type: "markdown", text: "Reads go through a **prepared statement**." },
        { type: "diff", diff: "--- a/src/store.ts\n+++ b/src/store.ts\n@@ -1,1 +1,1 @@\n-return this.map.get(key);\n+return read(this.db, key);\n" },
      ],
      project: "inventory",
    });
    await waitForBadge("1");
    await panel.keyboard.press("Escape");
    await (await find(panel, "[data-ask-row]", "Cache reads through SQLite")).click();
    await find(panel, "article[data-ask] .d2h-file-wrapper");
    await (await find(panel, "[data-ask-dock] button.btn", "Approve")).click();
    await (await find(panel, "[data-held=undo] button", "Send now")).click();
    expect((await waiting).reply).toEqual({ outcome: "approved" });
    await waitForBadge("");
  }, 60_000);
});
