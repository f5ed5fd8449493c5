// The person comments on lines of a review — three of a diff and one of code, by mouse and by
// keyboard — and sends changes requested; the agent's call returns the comments; the agent sends a
// revised review and the person sees what changed since the round they saw, with their comments
// beside the lines they were on. In the side panel, and in the web inbox at phone width by tapping.
// Once the review is closed, its comments stay beside their lines, their words rendered as markdown.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import type { ReviewComment } from "@loopback/shared/generated/types";
import { TestAgent } from "./harness/agent";
import { TestBrowser, ensureBuilt, holdChromium, openWebInbox } from "./harness/browser";
import { RelayProcess } from "../support/relay-process.ts";
import { STEP_MS } from "./harness/timeouts";

const PHONE = { width: 390, height: 844 };

const DIFF_1 = [
  "diff --git a/src/cache.ts b/src/cache.ts",
  "--- a/src/cache.ts",
  "+++ b/src/cache.ts",
  "@@ -1,4 +1,5 @@",
  " import { render } from './render';",
  "-export const TTL = 60;",
  "+export const TTL_MS = 60_000;",
  "+export const SIZE = 100;",
  " export function get(key: string) {",
  "   return store.get(key);",
  "",
].join("\n");
// Round 2: the line commented on the new side is renamed, the rest stays.
const DIFF_2 = DIFF_1.replace("+export const SIZE = 100;", "+export const MAX_ENTRIES = 100;");
const CODE_1 = "export function key(page: string) {\n  return page;\n}";
const CODE_2 = "export function key(page: string) {\n  return `page:${page}`;\n}";

const round = (project: string, diff: string, code: string, revises?: string) => ({
  title: `Cache rendered pages (${project})`,
  content: [
    { type: "markdown", text: "The cache sits in front of the renderer." },
    { type: "diff", diff },
    { type: "code", code, language: "ts", filename: "src/keys.ts" },
  ],
  project,
  ...(revises ? { revises } : {}),
});

let relay: RelayProcess;
let agent: TestAgent;
let personToken: string;
/** Lets go of the web inbox's Chromium: each test opens a fresh context in it, launched once for all. */
let releaseChromium: (() => Promise<void>) | undefined;

beforeAll(async () => {
  await ensureBuilt();
  relay = await new RelayProcess({ firstPerson: "Ada" }).start();
  personToken = await relay.token("Ada");
  agent = await TestAgent.connect(relay.url, await relay.token("Ada", { agent: true }));
  releaseChromium = await holdChromium();
}, 120_000);

afterAll(async () => {
  await agent?.close().catch(() => {});
  await releaseChromium?.();
  await relay?.dispose();
});

/** The drawn row of a diff showing `line` on `side` (unified view: the old number's cell, or the new one's). */
function diffRow(page: Page, side: "old" | "new", line: number): Locator {
  const cell = side === "old" ? ".line-num1" : ".line-num2";
  return page.locator("[data-block=diff] section[data-diff-file] tbody tr:not(.lb-below-row)").filter({ has: page.locator(cell, { hasText: new RegExp(`^\\s*${line}\\s*$`) }) });
}

/** Writes into the comment box that opened, and closes it. */
async function write(page: Page, words: string, close: "Done" | "Escape") {
  const box = page.locator("[data-comment=draft] textarea");
  await box.waitFor({ timeout: STEP_MS });
  expect(await box.evaluate((el) => el === document.activeElement)).toBe(true);
  await page.keyboard.type(words);
  if (close === "Done") await page.locator("[data-comment=draft]").getByRole("button", { name: "Done" }).click();
  else await page.keyboard.press("Escape");
  await page.locator("[data-comment=draft] textarea").waitFor({ state: "detached", timeout: STEP_MS });
}

async function openAsk(page: Page, askId: string) {
  await page.locator(`[data-ask-row="${askId}"]`).click({ timeout: STEP_MS });
  await page.locator(`article[data-ask="${askId}"]`).waitFor({ timeout: STEP_MS });
  await page.locator("[data-block=diff] .d2h-file-wrapper table").first().waitFor({ timeout: STEP_MS });
  await page.locator("[data-block=code] .highlighted pre.shiki .line").first().waitFor({ timeout: STEP_MS });
}

/** The whole flow on one page: comment, send, get the comments back, see the next round against this one. */
async function commentAndCompare(page: Page, project: string, use: "click" | "tap") {
  const press = (target: Locator) => (use === "tap" ? target.tap({ timeout: STEP_MS }) : target.click({ timeout: STEP_MS }));
  const first = agent.waitFor("request_review", round(project, DIFF_1, CODE_1));
  await page.locator("[data-ask-row]", { hasText: project }).waitFor({ timeout: STEP_MS });
  const askId = (await page.locator("[data-ask-row]", { hasText: project }).getAttribute("data-ask-row"))!;
  await openAsk(page, askId);

  // By mouse (or finger): an added line, then a removed one.
  await press(diffRow(page, "new", 3));
  await write(page, "SIZE of what? Name the unit.", "Done");
  await press(diffRow(page, "old", 2));
  await write(page, "Seconds were the bug, good.", "Done");
  // By keyboard: into the diff, down to its last line (new line 5), c, words, Escape.
  await page.locator("[data-block=diff] .render.pickable").focus();
  for (let i = 0; i < 6; i++) await page.keyboard.press("ArrowDown");
  await page.keyboard.press("c");
  await write(page, "<img src=x onerror=alert(1)> `store` needs a bound.", "Escape");
  // A line of code, by keyboard too: into the code, down to line 2, c.
  await page.locator("[data-block=code] .lines.pickable").focus();
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("c");
  await write(page, "Prefix the key.", "Done");

  // Each shows inline beneath its own line, and the count stands beside the verdict.
  const beneath = (row: Locator) => row.evaluate((tr) => tr.nextElementSibling?.querySelector(".body")?.textContent ?? null);
  expect(await beneath(diffRow(page, "new", 3))).toBe("SIZE of what? Name the unit.");
  expect(await beneath(diffRow(page, "old", 2))).toBe("Seconds were the bug, good.");
  // Markdown rendered as the rest, what looks like HTML shown as typed.
  expect(await beneath(diffRow(page, "new", 5))).toBe("<img src=x onerror=alert(1)> store needs a bound.");
  expect(await page.locator("[data-block=diff] img").count()).toBe(0);
  expect(await page.locator("[data-pending-comments]").getAttribute("data-pending-comments")).toBe("4");
  // Editable until sent: the code comment is opened again and changed.
  await page.locator("[data-block=code] [data-comment=draft]").getByRole("button", { name: "Edit" }).click();
  await page.keyboard.press("End");
  await page.keyboard.type(" With the kind.");
  await page.keyboard.press("Escape");

  await verdict(page, /Request changes/, press);
  const reply = (await first).reply!;
  const comments: ReviewComment[] = [
    { block: 1, file: "src/cache.ts", side: "new", line: 3, body: "SIZE of what? Name the unit." },
    { block: 1, file: "src/cache.ts", side: "old", line: 2, body: "Seconds were the bug, good." },
    { block: 1, file: "src/cache.ts", side: "new", line: 5, body: "<img src=x onerror=alert(1)> `store` needs a bound." },
    { block: 2, line: 2, body: "Prefix the key. With the kind." },
  ];
  expect(reply).toEqual({ outcome: "changes_requested", comments });

  // The next round revises this one: the person opens it and asks for the changes since.
  const second = agent.waitFor("request_review", round(project, DIFF_2, CODE_2, askId));
  await backToList(page, askId);
  const secondId = await waitForOpenRow(page, project, askId);
  await openAsk(page, secondId);
  await press(page.getByRole("button", { name: /Changes since the round you last saw/ }));
  const changes = page.locator("[data-round-changes]");
  await changes.locator("[data-change=changed]").nth(1).waitFor({ timeout: STEP_MS });
  expect(await changes.locator("[data-change]").evaluateAll((els) => els.map((e) => e.getAttribute("data-change")))).toEqual(["changed", "changed"]);
  await changes.locator(".d2h-file-wrapper table").nth(1).waitFor({ timeout: STEP_MS });
  // Every earlier comment is there: beside the line it was on, on the old side of the file's code
  // then and now; one on a line the rounds' code no longer differs around, listed with its file.
  const earlier = await changes.locator("[data-comment=earlier]").evaluateAll((els) =>
    els.map((el) => {
      const row = el.closest("tr")?.previousElementSibling;
      return { line: el.getAttribute("data-line"), text: el.querySelector(".body")?.textContent, beside: row?.querySelector(".d2h-code-line")?.textContent?.replace(/\s+/g, " ").trim() ?? null };
    }),
  );
  expect(earlier).toEqual([
    { line: "", text: "src/cache.ts, old line 2 (block 2): Seconds were the bug, good.", beside: null },
    { line: "3", text: "SIZE of what? Name the unit.", beside: "- export const SIZE = 100;" },
    { line: "5", text: "<img src=x onerror=alert(1)> store needs a bound.", beside: "return store.get(key);" },
    { line: "2", text: "Prefix the key. With the kind.", beside: "- return page;" },
  ]);
  // The changes show what replaced the commented line.
  expect(await changes.locator("[data-change=changed]").nth(0).evaluate((el) => el.textContent!.replace(/\s+/g, " "))).toContain("+ export const MAX_ENTRIES = 100;");

  await verdict(page, /Approve/, press);
  expect((await second).reply).toEqual({ outcome: "approved" });
}

/** Presses a verdict, then Send now on its undo window rather than wait it out. */
async function verdict(page: Page, name: RegExp, press: (target: Locator) => Promise<void>) {
  await press(page.locator("[data-ask-dock]").getByRole("button", { name }));
  await press(page.locator("[data-held=undo]").getByRole("button", { name: "Send now" }));
}

/** Back to the list once the ask shows the reply taken: a first Escape may only leave a text box. */
async function backToList(page: Page, askId: string) {
  await page.locator(`article[data-ask="${askId}"]:not([data-status=awaiting_human])`).waitFor({ timeout: STEP_MS });
  const list = page.locator(".list-pane");
  for (let i = 0; i < 3 && !(await list.isVisible()); i++) {
    await page.keyboard.press("Escape");
    await list.waitFor({ timeout: 1000 }).catch(() => {});
  }
  await list.waitFor({ timeout: STEP_MS });
}

/** The id of the open ask of `project` that is not `not`, once it is listed. */
async function waitForOpenRow(page: Page, project: string, not: string): Promise<string> {
  const deadline = Date.now() + STEP_MS;
  for (;;) {
    const ids = await page.locator("[data-ask-row]", { hasText: project }).evaluateAll((els) => els.map((e) => e.getAttribute("data-ask-row")!));
    const found = ids.find((id) => id !== not);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no second round of ${project} listed`);
    await Bun.sleep(100);
  }
}

describe("line comments and rounds", () => {
  test("in the side panel, by mouse and keyboard", async () => {
    const browser = await TestBrowser.withExtension();
    try {
      await browser.connect(relay.url, personToken);
      const panel = await browser.page("sidepanel.html");
      await commentAndCompare(panel, "panel-comments", "click");
    } finally {
      await browser.close();
    }
  }, 120_000);

  test("in the web inbox at phone width, by tapping", async () => {
    const browser = await TestBrowser.plain({ hasTouch: true, viewport: PHONE, signedIn: { relayUrl: relay.url, token: personToken } });
    try {
      const page = await browser.context.newPage();
      await openWebInbox(page, relay.url);
      await commentAndCompare(page, "phone-comments", "tap");
    } finally {
      await browser.close();
    }
  }, 120_000);

  test("a closed review keeps its comments beside their lines, their markdown rendered", async () => {
    const browser = await TestBrowser.plain({ viewport: { width: 1280, height: 900 }, signedIn: { relayUrl: relay.url, token: personToken } });
    try {
      const page = await browser.context.newPage();
      await openWebInbox(page, relay.url);
      const waiting = agent.waitFor("request_review", round("closed-comments", DIFF_1, CODE_1));
      const row = page.locator("[data-ask-row]", { hasText: "closed-comments" });
      await row.waitFor({ timeout: STEP_MS });
      const askId = (await row.getAttribute("data-ask-row"))!;
      const comments: ReviewComment[] = [
        { block: 1, file: "src/cache.ts", side: "new", line: 3, body: "Name the **unit**: `SIZE_ENTRIES`." },
        { block: 2, line: 2, body: "A *prefix* keeps keys apart." },
      ];
      const sent = await fetch(`${relay.url}/api/v1/asks/${askId}/reply`, {
        method: "POST",
        headers: { Authorization: `Bearer ${personToken}`, "Content-Type": "application/json" },
        body: JSON.stringify({ outcome: "changes_requested", comments }),
      });
      expect(sent.status).toBe(200);
      await waiting;

      await page.goto(`${relay.url}/inbox/#/ask/${askId}`);
      await page.locator(`article[data-ask="${askId}"][data-status=closed]`).waitFor({ timeout: STEP_MS });
      const onDiff = page.locator("[data-block=diff] .lb-below-row [data-comment]");
      await onDiff.waitFor({ timeout: STEP_MS });
      const seen = await page.evaluate(() => {
        const shown = (el: Element | null | undefined) =>
          el && {
            line: el.getAttribute("data-line"),
            text: el.querySelector(".body")?.textContent?.trim(),
            marked: [...el.querySelectorAll(".body strong, .body em, .body code")].map((m) => `${m.localName}:${m.textContent}`),
          };
        const diffComment = document.querySelector("[data-block=diff] .lb-below-row [data-comment]");
        return {
          diff: shown(diffComment),
          beneath: diffComment?.closest("tr")?.previousElementSibling?.querySelector(".line-num2, .d2h-code-side-linenumber")?.textContent?.trim(),
          code: shown(document.querySelector("[data-block=code] [data-comment]")),
          rawInThread: [...document.querySelectorAll(".thread")].some((t) => t.textContent!.includes("**") || t.textContent!.includes("(block ")),
        };
      });
      expect(seen).toEqual({
        diff: { line: "3", text: "Name the unit: SIZE_ENTRIES.", marked: ["strong:unit", "code:SIZE_ENTRIES"] },
        beneath: "3",
        code: { line: "2", text: "A prefix keeps keys apart.", marked: ["em:prefix"] },
        rawInThread: false,
      });
    } finally {
      await browser.close();
    }
  }, 120_000);

  test("in the split diff at desktop width, a comment sits beneath its side's line and the other side stays in line", async () => {
    const browser = await TestBrowser.plain({ viewport: { width: 1280, height: 900 }, signedIn: { relayUrl: relay.url, token: personToken } });
    try {
      const page = await browser.context.newPage();
      await openWebInbox(page, relay.url);
      // Side by side, the inbox opens on its first row: that ask is up before another is picked.
      await page.locator(".ask-pane article[data-ask]").waitFor({ timeout: STEP_MS });
      const input = round("split-comments", DIFF_1, CODE_1);
      // And code no highlighter knows, shown as plain lines: a click on one comments on it.
      input.content.push({ type: "code", code: "one\ntwo\nthree" } as (typeof input.content)[number]);
      const waiting = agent.waitFor("request_review", input);
      await page.locator("[data-ask-row]", { hasText: "split-comments" }).click({ timeout: STEP_MS });
      await page.getByRole("button", { name: "Split", exact: true }).click();
      const sides = page.locator("[data-block=diff] .d2h-file-side-diff");
      await sides.nth(1).waitFor({ timeout: STEP_MS });
      // The new side's line 3 (an added line), by mouse.
      const newRow = sides.nth(1).locator("tbody tr").filter({ has: page.locator(".d2h-code-side-linenumber", { hasText: /^\s*3\s*$/ }) });
      await newRow.click();
      await write(page, "In split view too.", "Done");
      // The facing row takes the comment's height once the browser has laid the comment out.
      const aligned = () => {
        const [left, right] = [...document.querySelectorAll("[data-block=diff] .d2h-file-side-diff")].map((t) => [...t.querySelectorAll("tbody tr")]);
        const at = right!.findIndex((tr) => tr.classList.contains("lb-below-row"));
        return at > 0 && Math.abs(left![at + 1]!.getBoundingClientRect().top - right![at + 1]!.getBoundingClientRect().top) < 1;
      };
      await page.waitForFunction(aligned, undefined, { timeout: STEP_MS }).catch(() => {});
      const layout = await page.evaluate(() => {
        const [left, right] = [...document.querySelectorAll("[data-block=diff] .d2h-file-side-diff")].map((t) => [...t.querySelectorAll("tbody tr")]);
        const at = right!.findIndex((tr) => tr.classList.contains("lb-below-row"));
        return {
          beneath: right![at - 1]!.querySelector(".d2h-code-side-linenumber")!.textContent!.trim(),
          text: right![at]!.querySelector(".body")?.textContent,
          facing: left![at]!.classList.contains("lb-below-row"),
          sameHeight: Math.abs(left![at]!.getBoundingClientRect().height - right![at]!.getBoundingClientRect().height) < 1,
          rowsAfterAlign: Math.abs(left![at + 1]!.getBoundingClientRect().top - right![at + 1]!.getBoundingClientRect().top) < 1,
        };
      });
      expect(layout).toEqual({ beneath: "3", text: "In split view too.", facing: true, sameHeight: true, rowsAfterAlign: true });
      const plain = page.locator("[data-block=code] pre.plain code").last();
      const at = await plain.evaluate((code) => {
        const rect = code.querySelectorAll(".line")[1]!.getBoundingClientRect();
        return { x: rect.right - 4, y: rect.top + rect.height / 2 };
      });
      await page.mouse.click(at.x, at.y);
      await write(page, "Plain, line two.", "Done");
      await verdict(page, /Request changes/, (target) => target.click());
      expect((await waiting).reply).toEqual({
        outcome: "changes_requested",
        comments: [
          { block: 1, file: "src/cache.ts", side: "new", line: 3, body: "In split view too." },
          { block: 3, line: 2, body: "Plain, line two." },
        ],
      });
    } finally {
      await browser.close();
    }
  }, 120_000);
});
