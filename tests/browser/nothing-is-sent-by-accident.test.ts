// The person's reply is only ever what they meant. In the side panel (420×900): typing a sentence
// in a briefing writes it on a point and sends nothing, `r` finds a reply box on every kind of ask,
// a stray `d` opens a confirm whose focused button keeps the ask, no review verdict is preselected,
// Ctrl+Enter in a line comment saves the comment, and every verdict and dismissal — key or click —
// is held with an Undo that is on screen, whatever the scroll. In the web inbox at 1280×800 and on
// a 390×844 touch phone: the verdicts of a long review are on screen at its top, a tap on one is
// held with its Undo on screen, and "Sent" shows where the person looks.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { running } from "../support/scene.ts";
import { TestBrowser, holdChromium, openWebInbox } from "./harness/browser";
import { inViewport } from "./harness/geometry";
import { longReview } from "./harness/long-review";
import { PanelScene } from "./harness/panel-scene";
import { STEP_MS, UNDO_MS } from "./harness/timeouts";

const scene = new PanelScene();
const calls: Record<string, Promise<unknown> & { settled: boolean }> = {};

const BRIEFING = {
  title: "Plan for the import retries",
  project: "briefing-typing",
  sections: [
    { title: "Findings", points: [{ title: "Reads fail one night in ten" }, { title: "Retries are cheap", detail: "A retry costs 4 ms." }, { title: "Batches stay small" }] },
    { title: "Next", points: [{ title: "Retry each step three times" }, { title: "Log every retry" }, { title: "Alert after the third" }] },
  ],
};

const activeLabel = (page: Page) => page.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent?.trim()}`);
const statusOf = async (id: string) =>
  ((await (await fetch(`${scene.relay.url}/api/v1/asks/${id}`, { headers: { Authorization: `Bearer ${scene.personToken}` } })).json()) as { status: string }).status;

beforeAll(() => scene.start(), 120_000);
afterAll(() => scene.close(), 30_000);

describe("in the side panel, nothing is sent that the person did not mean", () => {
  beforeAll(async () => {
    // The panel's clock is the test's to move past an undo window; until then it runs as time does.
    await scene.browser.context.clock.install();
    await scene.openPanel();
  }, 60_000);

  test("typing a sentence in a briefing writes it on a point, and typing into no box sends nothing", async () => {
    calls.briefing = running(scene.agent.waitFor("send_briefing", BRIEFING));
    const id = await scene.open(BRIEFING.title);
    await scene.panel.keyboard.press("r");
    expect(await activeLabel(scene.panel)).toBe("TEXTAREA Reply on point 1");
    await scene.panel.keyboard.type("Sounds good, do it.");
    expect(await scene.panel.getByLabel("Reply on point 1").inputValue()).toBe("Sounds good, do it.");
    // Out of the box, the same words land on no text box: the `d` in them opens a confirm whose
    // focused button keeps the ask, and the space after it presses that button.
    await scene.panel.keyboard.press("Escape");
    await scene.panel.keyboard.type("Sounds good");
    const confirm = scene.panel.getByRole("alertdialog");
    await confirm.waitFor({ timeout: STEP_MS });
    expect(await activeLabel(scene.panel)).toBe("BUTTON Keep");
    await scene.panel.keyboard.press(" ");
    await confirm.waitFor({ state: "detached", timeout: STEP_MS });
    expect(await scene.panel.locator("[data-held]").count()).toBe(0);
    expect(await statusOf(id)).toBe("awaiting_human");
  }, 60_000);

  test("r puts the cursor in the reply box of a question and of a review", async () => {
    calls.question = running(scene.agent.waitFor("ask_question", { question: "Retry reads too?", options: [{ label: "Yes" }, { label: "No" }], project: "r-question" }));
    await scene.open("Retry reads too?");
    await scene.panel.keyboard.press("r");
    expect(await activeLabel(scene.panel)).toBe("TEXTAREA Your own words");
    calls.review = running(scene.agent.waitFor("request_review", longReview("Retry every import step", "long-review")));
    await scene.open("Retry every import step");
    await scene.panel.keyboard.press("r");
    expect(await activeLabel(scene.panel)).toMatch(/^TEXTAREA (Note|Feedback)/);
    await scene.panel.keyboard.press("Escape");
  }, 60_000);

  test("no verdict is chosen for the person: none is marked, and Ctrl+Enter in a line comment saves only that comment", async () => {
    const article = scene.panel.locator("article[data-ask]");
    expect(await article.locator("[aria-checked=true]").count()).toBe(0);
    await article.locator("[data-block=diff] section[data-diff-file] tbody tr:not(.lb-below-row)").nth(3).click();
    const box = scene.panel.locator("[data-comment=draft] textarea");
    await box.waitFor({ timeout: STEP_MS });
    await scene.panel.keyboard.type("Why three?");
    await scene.panel.keyboard.press("Control+Enter");
    await box.waitFor({ state: "detached", timeout: STEP_MS });
    expect(await scene.panel.locator("[data-comment=draft] .body").textContent()).toBe("Why three?");
    // And in the review's own note: a verdict is a button the person presses, not a key.
    await scene.panel.keyboard.press("r");
    await scene.panel.keyboard.type("Looks right.");
    await scene.panel.keyboard.press("Control+Enter");
    expect(await scene.panel.locator("[data-held]").count()).toBe(0);
    expect(calls.review!.settled).toBe(false);
    await scene.panel.keyboard.press("Escape");
  }, 60_000);

  test("the verdicts of a long review are on screen at its top, and a click on one is held with its Undo on screen", async () => {
    const pane = scene.panel.locator("main.ask-pane");
    await pane.evaluate((el) => el.scrollTo({ top: 0 }));
    const approve = scene.panel.getByRole("button", { name: /Approve/ });
    expect(await inViewport(approve)).toBe(true);
    expect(await inViewport(scene.panel.getByRole("button", { name: /Request changes/ }))).toBe(true);
    await approve.click();
    const held = scene.panel.locator("[data-held=undo]");
    await held.waitFor({ timeout: STEP_MS });
    expect(await held.textContent()).toMatch(/Approving in \d s/);
    expect(await inViewport(held.getByRole("button", { name: /Undo/ }))).toBe(true);
    await held.getByRole("button", { name: /Undo/ }).click();
    await held.waitFor({ state: "detached", timeout: STEP_MS });
    // Scrolled half-way down, `a` changes what is on screen: the hold and its Undo.
    await pane.evaluate((el) => el.scrollTo({ top: el.scrollHeight / 2 }));
    await scene.panel.keyboard.press("a");
    await held.waitFor({ timeout: STEP_MS });
    expect(await inViewport(held.getByRole("button", { name: /Undo/ }))).toBe(true);
    await scene.panel.keyboard.press("u");
    await held.waitFor({ state: "detached", timeout: STEP_MS });
  }, 60_000);

  test("a click on Dismiss is held with Undo, like a verdict", async () => {
    const id = await scene.open("Retry reads too?");
    await scene.panel.getByRole("button", { name: /^Dismiss/ }).click();
    const held = scene.panel.locator("[data-held=undo]");
    await held.waitFor({ timeout: STEP_MS });
    expect(await held.textContent()).toMatch(/Dismissing in \d s/);
    expect(await inViewport(held.getByRole("button", { name: /Undo/ }))).toBe(true);
    await held.getByRole("button", { name: /Undo/ }).click();
    await held.waitFor({ state: "detached", timeout: STEP_MS });
    // Past every undo window above, nothing undone or typed has reached the agent.
    await scene.panel.clock.runFor(UNDO_MS + 500);
    expect([calls.briefing!.settled, calls.question!.settled, calls.review!.settled]).toEqual([false, false, false]);
    expect(await statusOf(id)).toBe("awaiting_human");
  }, 60_000);

  test("a verdict let go reaches the agent with the comment, and Sent shows on screen", async () => {
    const id = await scene.open("Retry every import step");
    await scene.panel.getByRole("button", { name: /Request changes/ }).click();
    const held = scene.panel.locator("[data-held=undo]");
    await held.waitFor({ timeout: STEP_MS });
    expect(await held.textContent()).toMatch(/Requesting changes in \d s/);
    // A second before the window ends it is still held, and nothing has gone.
    await scene.panel.clock.runFor(UNDO_MS - 1_000);
    await held.filter({ hasText: /Requesting changes in 1 s/ }).waitFor({ timeout: STEP_MS });
    expect(calls.review!.settled).toBe(false);
    expect(await statusOf(id)).toBe("awaiting_human");
    await scene.panel.clock.runFor(1_000);
    const reply = ((await calls.review) as { reply: { outcome: string; feedback?: string; comments?: { body: string }[] } }).reply;
    expect(reply.outcome).toBe("changes_requested");
    expect(reply.feedback).toBe("Looks right.");
    expect(reply.comments?.map((c) => c.body)).toEqual(["Why three?"]);
    const sent = scene.panel.locator("[data-sent]");
    await sent.waitFor({ timeout: STEP_MS });
    expect(await sent.textContent()).toContain("Changes requested");
    expect(await inViewport(sent)).toBe(true);
  }, 60_000);
});

describe("in the web inbox, the verdicts and their Undo are on screen on a desktop and a phone", () => {
  // Each test opens a fresh context of its own, in one Chromium launched for both.
  let release: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    release = await holdChromium();
  }, 60_000);
  afterAll(() => release?.());

  for (const [name, size, touch] of [["desktop", { width: 1280, height: 800 }, false], ["phone", { width: 390, height: 844 }, true]] as const) {
    test(`at ${size.width}×${size.height}, ${touch ? "tapped" : "clicked"}`, async () => {
      const browser = await TestBrowser.plain({ viewport: size, hasTouch: touch, isMobile: touch, signedIn: { relayUrl: scene.relay.url, token: scene.personToken } });
      try {
        const page = await browser.context.newPage();
        await openWebInbox(page, scene.relay.url);
        const title = `Retry every step (${name})`;
        const call = running(scene.agent.waitFor("request_review", longReview(title, `web-${name}`)));
        const id = await scene.open(title, page);
        const press = (target: ReturnType<Page["locator"]>) => (touch ? target.tap({ timeout: STEP_MS }) : target.click({ timeout: STEP_MS }));
        const approve = page.locator(`article[data-ask="${id}"]`).getByRole("button", { name: /Approve/ });
        expect(await inViewport(approve)).toBe(true);
        await press(approve);
        const held = page.locator("[data-held=undo]");
        await held.waitFor({ timeout: STEP_MS });
        expect(await inViewport(held.getByRole("button", { name: /Undo/ }))).toBe(true);
        expect(call.settled).toBe(false);
        await press(held.getByRole("button", { name: "Send now" }));
        expect(((await call) as { reply: unknown }).reply).toEqual({ outcome: "approved" });
        const sent = page.locator("[data-sent]");
        await sent.waitFor({ timeout: STEP_MS });
        expect(await inViewport(sent)).toBe(true);
      } finally {
        await browser.close();
      }
    }, 90_000);
  }
});
