// The web inbox laid out in real Chromium, asserted by geometry: on a 1280-px desktop it uses the
// width beside the list (code and the split diff do not scroll sideways, a split diff's wrapped
// lines keep its two sides in step, project chips are not cut off), opens on its selected first
// row, keeps a question's choices in view while asking back, and unfolds a briefing at one click;
// on a 390-px touch phone every button is a 44-px target, no keyboard hints show, the project chips
// keep one row, the account sheet's buttons stand apart, and a diff wraps its lines instead of
// showing a slice of each.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { Person } from "../support/person.ts";
import { ROOT, RelayProcess } from "../support/relay-process.ts";
import { TestAgent } from "./harness/agent";
import { TestBrowser, ensureBuilt, openWebInbox } from "./harness/browser";
import { TITLES, sendRealisticAsks, titleOf, type Kind } from "./harness/realistic-asks";
import { STEP_MS } from "./harness/timeouts";

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
/** WCAG 2.5.5's target size, and Apple's and Google's guidance for touch. */
const TARGET_PX = 44;
/** The README's pictures of the web inbox, taken as these tests see it. */
const SCREENSHOTS = { desktop: join(ROOT, "docs/screenshot-web-desktop.png"), phone: join(ROOT, "docs/screenshot-web-phone.png") };

let relay: RelayProcess;
let desktop: TestBrowser;
let phone: TestBrowser;
let agent: TestAgent;
let personToken: string;
const ids = {} as Record<Kind, string>;

async function signedIn(browser: TestBrowser, size: { width: number; height: number }): Promise<Page> {
  const page = await browser.context.newPage();
  await page.setViewportSize(size);
  await openWebInbox(page, relay.url);
  return page;
}

async function openAsk(page: Page, kind: Kind) {
  await page.goto(`${relay.url}/inbox/#/ask/${ids[kind]}`);
  const article = page.locator(`article[data-ask="${ids[kind]}"]`);
  await article.waitFor({ timeout: STEP_MS });
  if (kind === "review") {
    await article.locator(".highlighted pre.shiki").waitFor({ timeout: STEP_MS });
    await article.locator(".d2h-file-wrapper").nth(2).waitFor({ timeout: STEP_MS });
  }
  return article;
}

/** Boxes inside `selector` whose content is wider than they are: they scroll sideways. */
function scrollingSideways(page: Page, selector: string) {
  return page.$$eval(selector, (els) => els.filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => `${el.className}: ${el.scrollWidth} > ${el.clientWidth}`));
}

/** Visible, enabled buttons smaller than a fingertip, described by their text. */
function smallTargets(page: Page, min: number) {
  return page.$$eval(
    "button:not(:disabled)",
    (els, px) =>
      els
        .map((el) => ({ el, box: el.getBoundingClientRect() }))
        .filter(({ el, box }) => box.width > 0 && box.height > 0 && el.checkVisibility())
        .filter(({ box }) => box.width < px - 0.5 || box.height < px - 0.5)
        .map(({ el, box }) => `"${(el.getAttribute("aria-label") ?? el.textContent ?? "").trim().slice(0, 30)}" ${Math.round(box.width)}×${Math.round(box.height)}`),
    min,
  );
}

/** Keyboard hints shown outside the shortcuts dialog. */
function visibleKeyHints(page: Page) {
  return page.$$eval("kbd", (els) => els.filter((el) => !el.closest("[role=dialog]") && el.getClientRects().length > 0).map((el) => el.textContent));
}

describe("the inbox fits a desktop and a phone", () => {
  beforeAll(async () => {
    await ensureBuilt();
    relay = await new RelayProcess({ firstPerson: "Ada" }).start();
    personToken = await relay.token("Ada");
    agent = await TestAgent.connect(relay.url, await relay.token("Ada", { agent: true }));
    sendRealisticAsks(agent);
    const person = new Person(relay.url, personToken);
    while (Object.keys(ids).length < 3) {
      for (const ask of (await person.snapshot()).open) {
        const kind = (Object.keys(TITLES) as Kind[]).find((k) => TITLES[k] === titleOf(ask));
        if (kind) ids[kind] = ask.id;
      }
      await Bun.sleep(50);
    }
    const signedIn = { relayUrl: relay.url, token: personToken };
    desktop = await TestBrowser.plain({ signedIn });
    phone = await TestBrowser.plain({ hasTouch: true, isMobile: true, viewport: PHONE, signedIn });
  }, 120_000);

  afterAll(async () => {
    await agent?.close().catch(() => {});
    await desktop?.close();
    await phone?.close();
    await relay?.dispose();
  });

  test("at 1280 px an open review fills the width beside the list, and its code and split diff need no sideways scrolling", async () => {
    const page = await signedIn(desktop, DESKTOP);
    const article = await openAsk(page, "review");
    await page.getByRole("button", { name: "Split" }).click();
    await article.locator(".d2h-file-side-diff").first().waitFor({ timeout: STEP_MS });

    const pane = (await page.locator(".ask-pane").boundingBox())!;
    const ask = (await article.boundingBox())!;
    expect(pane.x + pane.width - (ask.x + ask.width)).toBeLessThanOrEqual(24);
    expect(await scrollingSideways(page, "article pre")).toEqual([]);
    expect(await scrollingSideways(page, ".d2h-file-side-diff, .d2h-file-diff")).toEqual([]);
    // Nothing is cut instead: every diff line ends inside its side of the split.
    const cut = await page.$$eval(".d2h-file-side-diff", (sides) =>
      sides.flatMap((side) => {
        const edge = side.getBoundingClientRect().right;
        return [...side.querySelectorAll(".d2h-code-line-ctn")].filter((line) => line.getBoundingClientRect().right > edge + 1).map((line) => line.textContent);
      }),
    );
    expect(cut).toEqual([]);
    // A wrapped line leaves both sides' rows side by side: each pair starts at the same height.
    const misaligned = await page.$$eval(".d2h-files-diff", (files) =>
      files.flatMap((file) => {
        const [left, right] = [...file.querySelectorAll(".d2h-file-side-diff")].map((side) => [...side.querySelectorAll("tr")]);
        return left!.filter((row, i) => Math.abs(row.getBoundingClientRect().top - right![i]!.getBoundingClientRect().top) > 1).map((row) => row.textContent);
      }),
    );
    expect(misaligned).toEqual([]);
    await page.evaluate(() => document.querySelector(".ask-pane")?.scrollTo({ top: 0 }));
    await page.screenshot({ path: SCREENSHOTS.desktop });
    await page.close();
  }, 60_000);

  test("at 1280 px every project chip shows whole", async () => {
    const page = await signedIn(desktop, DESKTOP);
    await page.locator("[data-ask-row]", { hasText: TITLES.briefing }).waitFor({ timeout: STEP_MS });
    const filters = page.locator(".filters");
    expect(await filters.locator("button").allTextContents()).toEqual(["All", "billing-service", "inventory-service", "storefront-web"]);
    const box = (await filters.boundingBox())!;
    for (const chip of await filters.locator("button").all()) {
      const b = (await chip.boundingBox())!;
      expect([await chip.textContent(), b.x >= box.x && b.x + b.width <= box.x + box.width + 0.5]).toEqual([await chip.textContent(), true]);
    }
    expect(await scrollingSideways(page, ".filters")).toEqual([]);
    await page.close();
  }, 60_000);

  test("at 1280 px the inbox opens on its selected first row, not an empty pane", async () => {
    const page = await signedIn(desktop, DESKTOP);
    const first = page.locator("[data-ask-row]").first();
    await page.locator(".ask-pane article[data-ask]").waitFor({ timeout: STEP_MS });
    expect(await page.locator(".ask-pane article").getAttribute("data-ask")).toBe(await first.getAttribute("data-ask-row"));
    expect(await page.locator(".ask-pane.empty").count()).toBe(0);
    await page.close();
  }, 60_000);

  test("asking back keeps the question's choices in view beside the box for the question", async () => {
    const page = await signedIn(desktop, DESKTOP);
    const article = await openAsk(page, "question");
    const choices = article.getByRole("group", { name: "Pick one" });
    const before = await choices.getByRole("radio").allTextContents();
    expect(before.length).toBeGreaterThan(1);
    await page.getByRole("button", { name: "Ask back…" }).click();
    await article.getByLabel("Ask the agent before deciding").waitFor({ timeout: STEP_MS });
    expect(await choices.getByRole("radio").allTextContents()).toEqual(before);
    expect(await choices.isVisible()).toBe(true);
    await page.close();
  }, 60_000);

  test("a briefing unfolds every point at one click, and folds them again", async () => {
    const page = await signedIn(desktop, DESKTOP);
    const article = await openAsk(page, "briefing");
    const heads = article.locator("[data-point] > button.head");
    expect(await heads.count()).toBeGreaterThan(3);
    await article.getByRole("button", { name: "Unfold all" }).click({ timeout: STEP_MS });
    expect(new Set(await heads.evaluateAll((els) => els.map((el) => el.getAttribute("aria-expanded"))))).toEqual(new Set(["true"]));
    await article.getByRole("button", { name: "Fold all" }).click();
    expect(new Set(await heads.evaluateAll((els) => els.map((el) => el.getAttribute("aria-expanded"))))).toEqual(new Set(["false"]));
    await page.close();
  }, 60_000);

  test("on a desktop the keyboard hints show", async () => {
    const page = await signedIn(desktop, DESKTOP);
    await openAsk(page, "review");
    expect(await visibleKeyHints(page)).toContain("a");
    await page.close();
  }, 60_000);

  test("on a 390-px touch phone every button is a 44-px target and no keyboard hint shows", async () => {
    const page = await signedIn(phone, PHONE);
    expect(await page.evaluate(() => [matchMedia("(pointer: coarse)").matches, matchMedia("(hover: none)").matches])).toEqual([true, true]);
    const found: string[] = [];
    await page.locator("[data-ask-row]", { hasText: TITLES.briefing }).waitFor({ timeout: STEP_MS });
    found.push(...(await smallTargets(page, TARGET_PX)).map((t) => `list: ${t}`));
    found.push(...(await visibleKeyHints(page)).map((k) => `list: key hint ${k}`));
    for (const kind of ["question", "review", "briefing"] as const) {
      const article = await openAsk(page, kind);
      if (kind === "briefing") await article.locator('[data-point="1"] button.head').click();
      found.push(...(await smallTargets(page, TARGET_PX)).map((t) => `${kind}: ${t}`));
      found.push(...(await visibleKeyHints(page)).map((k) => `${kind}: key hint ${k}`));
    }
    expect(found).toEqual([]);
    // Nothing spills sideways out of the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.close();
  }, 60_000);

  test("on a 390-px phone the project chips keep one row and no two buttons of the account sheet touch", async () => {
    const page = await signedIn(phone, PHONE);
    await page.locator("[data-ask-row]", { hasText: TITLES.briefing }).waitFor({ timeout: STEP_MS });
    const tops = await page.locator(".filters button").evaluateAll((chips) => chips.map((c) => Math.round(c.getBoundingClientRect().top)));
    expect(tops.length).toBe(4);
    expect(new Set(tops).size).toBe(1);

    await page.getByRole("button", { name: "Settings" }).click();
    const sheet = page.getByRole("dialog", { name: "Account" });
    await sheet.getByRole("button", { name: "Sign out" }).waitFor({ timeout: STEP_MS });
    // The gap between each two buttons' boxes, the larger of the horizontal and the vertical one.
    const gaps = await sheet.locator("button").evaluateAll((buttons) => {
      const boxes = buttons.map((b) => ({ text: b.textContent?.trim(), r: b.getBoundingClientRect() })).filter((b) => b.r.width > 0);
      return boxes.flatMap((a, i) =>
        boxes.slice(i + 1).map((b) => {
          const gap = Math.max(b.r.left - a.r.right, a.r.left - b.r.right, b.r.top - a.r.bottom, a.r.top - b.r.bottom);
          return { between: `${a.text} / ${b.text}`, touching: gap < 8 };
        }),
      );
    });
    expect(gaps.length).toBeGreaterThan(0);
    expect(gaps.filter((g) => g.touching).map((g) => g.between)).toEqual([]);
    await page.close();
  }, 60_000);

  test("on a 390-px phone a diff wraps its lines, so each shows whole", async () => {
    const page = await signedIn(phone, PHONE);
    const article = await openAsk(page, "review");
    await article.locator(".d2h-file-diff").first().waitFor({ timeout: STEP_MS });
    expect(await scrollingSideways(page, ".d2h-file-diff, .d2h-file-side-diff")).toEqual([]);
    const lines = await page.$$eval(".d2h-file-diff", (files) =>
      files.flatMap((file) => {
        const box = file.getBoundingClientRect();
        return [...file.querySelectorAll(".d2h-code-line-ctn")].map((line) => {
          const r = line.getBoundingClientRect();
          return { text: line.textContent ?? "", inside: r.left >= box.left - 1 && r.right <= box.right + 1, rows: Math.round(r.height / parseFloat(getComputedStyle(line).lineHeight)) };
        });
      }),
    );
    expect(lines.filter((l) => !l.inside).map((l) => l.text)).toEqual([]);
    // The longest line of the diff takes several rows rather than running off the screen.
    const longest = lines.reduce((a, b) => (b.text.length > a.text.length ? b : a));
    expect(longest.text.length).toBeGreaterThan(80);
    expect(longest.rows).toBeGreaterThan(1);
    await article.locator(".d2h-file-diff").first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: SCREENSHOTS.phone });
    await page.close();
  }, 60_000);
});
