// The Firefox build in real Firefox (Debian's firefox-esr, over WebDriver BiDi) against a real
// relay and a real MCP agent: connect through the options page the extension opens on install,
// see an ask arrive in the panel and on the badge, answer it, and the agent's call returns.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ElementHandle, Page } from "puppeteer-core";
import { RelayProcess } from "../support/relay-process.ts";
import { TestAgent } from "./harness/agent";
import { ensureBuilt } from "./harness/browser";
import { TestFirefox } from "./harness/firefox";
import { longReview } from "./harness/long-review";
import { COMMENTED, ROUND_1, ROUND_2, round } from "./harness/two-rounds";
import { running } from "../support/scene.ts";
import { STEP_MS, UNDO_MS } from "./harness/timeouts";

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

/** Whether the whole of the element's box is inside the viewport. */
const inViewport = (el: ElementHandle<HTMLElement>) =>
  el.evaluate((e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
  });

const active = () => panel.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent?.trim()}`);

/** Opens the ask titled `title` from the list. */
async function open(title: string) {
  for (let i = 0; i < 2 && !(await panel.$(".list-pane")); i++) await panel.keyboard.press("Escape");
  await (await find(panel, "[data-ask-row]", title)).click();
  await find(panel, "article[data-ask] h1", title);
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
    relay = await new RelayProcess({ firstPerson: "Ada" }).start();
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
    const result = await find(options, "[data-result=ok]", "Connected");
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

  test("nothing is sent that the person did not mean: typing in a briefing, Ctrl+Enter in a line comment, a clicked verdict", async () => {
    const briefing = running(
      agent.waitFor("send_briefing", { title: "Retries for the import", project: "ff-briefing", sections: [{ points: [{ title: "Retry three times" }, { title: "Log each retry" }] }] }),
    );
    await open("Retries for the import");
    await panel.keyboard.press("r");
    expect(await active()).toBe("TEXTAREA Reply on point 1");
    await panel.keyboard.type("Sounds good, do it.");
    await panel.keyboard.press("Escape");
    await panel.keyboard.type("Sounds good");
    await find(panel, "[role=alertdialog]");
    expect(await active()).toBe("BUTTON Keep");
    await panel.keyboard.press(" ");
    expect(await panel.$("[role=alertdialog]")).toBeNull();

    const review = running(agent.waitFor("request_review", longReview("Retry every step in Firefox", "ff-review")));
    await open("Retry every step in Firefox");
    expect(await panel.$$eval("article[data-ask] [aria-checked=true]", (els) => els.length)).toBe(0);
    const approve = await find(panel, "[data-ask-dock] button", "Approve");
    expect(await inViewport(approve)).toBe(true);
    await (await find(panel, "[data-block=diff] section[data-diff-file] tbody tr:not(.lb-below-row)", "step4")).click();
    await find(panel, "[data-comment=draft] textarea");
    await panel.keyboard.type("Why three?");
    await panel.keyboard.down("Control");
    await panel.keyboard.press("Enter");
    await panel.keyboard.up("Control");
    await find(panel, "[data-comment=draft] .body", "Why three?");
    await approve.click();
    const undo = await find(panel, "[data-held=undo] button", "Undo");
    expect(await inViewport(undo)).toBe(true);
    await undo.click();
    // Past the undo window on real time: WebDriver BiDi gives Firefox no clock to move (the Chromium
    // tests move the panel's own past the same window), and only waiting past it shows nothing went.
    await Bun.sleep(UNDO_MS + 500);
    expect([briefing.settled, review.settled]).toEqual([false, false]);
    await (await find(panel, "[data-ask-dock] button", "Approve")).click();
    await (await find(panel, "[data-held=undo] button", "Send now")).click();
    expect(((await review) as { reply: unknown }).reply).toEqual({ outcome: "approved", comments: [expect.objectContaining({ body: "Why three?" })] });
    await find(panel, "[data-sent]", "Approved");
  }, 90_000);

  test("a briefing by keys: n walks its points, r writes on the one the person is on, and that point goes alone", async () => {
    const briefing = running(
      agent.waitFor("send_briefing", { title: "Batches for the import", project: "ff-points", sections: [{ points: [{ title: "Batch the rows" }, { title: "Index the SKU" }, { title: "Resize once" }] }] }),
    );
    await open("Batches for the import");
    await panel.keyboard.press("n");
    await panel.keyboard.press("n");
    expect(await panel.evaluate(() => document.activeElement?.closest("[data-point]")?.getAttribute("data-point"))).toBe("2");
    await panel.keyboard.press("r");
    expect(await active()).toBe("TEXTAREA Reply on point 2");
    await panel.keyboard.type("Which index, exactly?");
    await (await find(panel, '[data-point="2"] [data-send-point]')).click();
    expect(((await briefing) as { reply: unknown }).reply).toEqual({ outcome: "responded", points: [{ point: "2", text: "Which index, exactly?" }] });
  }, 60_000);

  test("the changes since the round last seen compare the code: only the file whose code changed, only its changed lines", async () => {
    const first = agent.waitFor("request_review", round("ff-rounds", ROUND_1));
    for (let i = 0; i < 2 && !(await panel.$(".list-pane")); i++) await panel.keyboard.press("Escape");
    await find(panel, "[data-ask-row]", "Retry the import (ff-rounds)");
    const snapshot = (await (await fetch(`${relay.url}/api/v1/snapshot`, { headers: { Authorization: `Bearer ${personToken}` } })).json()) as { open: { id: string; project?: string }[] };
    const firstId = snapshot.open.find((a) => a.project === "ff-rounds")!.id;
    const sent = await fetch(`${relay.url}/api/v1/asks/${firstId}/reply`, {
      method: "POST",
      headers: { Authorization: `Bearer ${personToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ outcome: "changes_requested", comments: [{ block: 0, ...COMMENTED, body: "Why three?" }] }),
    });
    expect(sent.status).toBe(200);
    await first;
    void agent.waitFor("request_review", round("ff-rounds", ROUND_2, firstId)).catch(() => {});
    for (let i = 0; i < 2 && !(await panel.$(".list-pane")); i++) await panel.keyboard.press("Escape");
    await (await find(panel, "[data-ask-row]:has([data-new-round])", "Retry the import (ff-rounds)")).click();
    await (await find(panel, "[data-round-changes] button", "Changes since the round you last saw")).click();
    await find(panel, "[data-change] .d2h-file-wrapper table");
    const seen = await panel.evaluate(() => {
      const root = document.querySelector("[data-round-changes]")!;
      const squash = (el: Element | null | undefined) => el?.textContent?.replace(/\s+/g, " ").trim();
      return {
        files: [...root.querySelectorAll("[data-change] h3 .name")].map((el) => el.textContent),
        changed: [...root.querySelectorAll("[data-change] tr")].filter((tr) => tr.querySelector(".d2h-ins, .d2h-del")).map((tr) => squash(tr.querySelector(".d2h-code-line, .d2h-code-side-line"))),
        earlier: [...root.querySelectorAll("[data-comment=earlier]")].map((el) => [squash(el.querySelector(".body")), squash(el.closest("tr")?.previousElementSibling?.querySelector(".d2h-code-line, .d2h-code-side-line"))]),
      };
    });
    expect(seen).toEqual({ files: ["src/retry.ts"], changed: ["- retry(3);", "+ retry(5);"], earlier: [["Why three?", "- retry(3);"]] });
  }, 90_000);
});
