// axe-core, the engine behind most accessibility audits, run in real Chromium on every screen a
// person meets: the list, an open question, a review, a briefing and an approval; in the side panel (and its
// options page) and in the web inbox at desktop and at phone width; in the light and the dark
// theme. Nothing critical or serious may be found, and headings keep their order (moderate to
// axe, but a screen reader's outline of the ask).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { REVISION } from "@loopback/shared/generated/revision";
import { Person } from "../support/person.ts";
import { RelayProcess } from "../support/relay-process.ts";
import { until } from "../support/scene.ts";
import { TestAgent } from "./harness/agent";
import { TestBrowser, ensureBuilt } from "./harness/browser";
import { TITLES, sendRealisticAsks, titleOf, type Kind } from "./harness/realistic-asks";
import { STEP_MS } from "./harness/timeouts";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const SCREENS = ["list", "question", "review", "briefing", "approval"] as const;

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

let relay: RelayProcess;
let panelBrowser: TestBrowser;
let webBrowser: TestBrowser;
let agent: TestAgent;
let personToken: string;
const ids = {} as Record<Kind | "approval", string>;

/** axe's critical and serious findings, and heading order, on the page as it is now, one line per element. */
async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated rather than injected as a <script>: the pages' Content-Security-Policy stays on. Once
  // per page: moving between screens changes only the hash, and compiling axe again cost a tenth of
  // the file's processor time.
  if (!(await page.evaluate(() => "axe" in globalThis))) await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: Violation[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ["violations"] })).violations;
  });
  return violations
    .filter((v) => v.impact === "critical" || v.impact === "serious" || v.id === "heading-order")
    .flatMap((v) => v.nodes.map((n) => `${v.impact} ${v.id}: ${n.target.join(" ")} — ${n.failureSummary?.split("\n").slice(1).join(" ").trim()}`));
}

/**
 * The findings on a screen as it is shown, in the light scheme and then the dark: the screen is shown
 * once and only its colours change between the two (showing each screen again for the dark scheme
 * cost a third of this file's processor time). Reduced motion: a colour read while the switch to the
 * scheme is still easing in is no colour the person sees (an options button was once read half way
 * from light to dark).
 */
async function inBothSchemes(page: Page, screen: string): Promise<string[]> {
  const found: string[] = [];
  const backgrounds = new Set<string>();
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme, reducedMotion: "reduce" });
    // What the page does when the scheme changes (a listener on the media query) is done by the next frame.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    backgrounds.add(await page.evaluate(() => getComputedStyle(document.body).backgroundColor));
    found.push(...(await seriousViolations(page)).map((v) => `${screen}, ${colorScheme}: ${v}`));
  }
  // Else the dark pass read the light colours again.
  if (backgrounds.size !== 2) found.push(`${screen}: the page's background is the same in both schemes`);
  return found;
}

/** Shows a screen: the list, or one of the asks opened from it, fully rendered. */
async function show(page: Page, base: string, screen: (typeof SCREENS)[number]): Promise<void> {
  if (screen === "list") {
    await page.goto(`${base}#/`);
    await page.locator("[data-ask-row]", { hasText: TITLES.briefing }).waitFor({ timeout: STEP_MS });
    return;
  }
  await page.goto(`${base}#/ask/${ids[screen]}`);
  const article = page.locator(`article[data-ask="${ids[screen]}"]`);
  await article.waitFor({ timeout: STEP_MS });
  if (screen === "review") {
    await article.locator(".highlighted pre.shiki").waitFor({ timeout: STEP_MS });
    await article.locator(".d2h-file-wrapper").first().waitFor({ timeout: STEP_MS });
  }
  if (screen === "briefing") {
    // A point opened for a reply shows its text box and "resolved" switch too.
    await article.locator('[data-point="1"] button.head').click();
    await page.getByLabel("Reply on point 1").waitFor({ timeout: STEP_MS });
  }
  if (screen === "approval") {
    // The command opened for editing shows its text box too.
    await article.getByRole("button", { name: /Edit the command/ }).click();
    await page.getByLabel("The command to run").waitFor({ timeout: STEP_MS });
  }
}

describe("the inbox has no critical or serious accessibility violations", () => {
  beforeAll(async () => {
    await ensureBuilt();
    relay = await new RelayProcess({ firstPerson: "Ada" }).start();
    personToken = await relay.token("Ada");
    const agentToken = await relay.token("Ada", { agent: true });
    agent = await TestAgent.connect(relay.url, agentToken);
    const person = new Person(relay.url, personToken);

    // One ask already answered, so the list has a closed row too.
    const closed = agent.waitFor("ask_question", { question: "Ship the cache on Friday?", project: "billing-service" });
    const waiting = async () => (await person.snapshot()).open;
    const first = await until(async () => (await waiting()).find((a) => titleOf(a) === "Ship the cache on Friday?"), "the first question is open", STEP_MS);
    await person.reply(first.id, { outcome: "answered", selected: [], text: "Yes, after the backup." });
    await closed;

    sendRealisticAsks(agent);
    await until(
      async () => {
        const open = await waiting();
        for (const kind of Object.keys(TITLES) as Kind[]) {
          const ask = open.find((a) => titleOf(a) === TITLES[kind]);
          if (ask) ids[kind] = ask.id;
        }
        return Object.keys(ids).length === 3;
      },
      "the question, the review and the briefing are open",
      STEP_MS,
    );
    // A permission prompt: its call returns only once the person decides, which none here does.
    void agent
      .requestApproval({ tool_name: "Bash", input: { command: "rm -rf build", description: "Remove the build output" }, tool_use_id: "toolu_axe", cwd: "/home/ada/shop", reason: "The old build breaks the tests.", project: "billing-service" })
      .catch(() => {});
    // Approvals are shown only to a reader of the revision that has them.
    const reader = person.reading(REVISION);
    ids.approval = await until(async () => (await reader.snapshot()).open.find((a) => a.kind === "approval")?.id, "the approval is open", STEP_MS);

    panelBrowser = await TestBrowser.withExtension();
    await panelBrowser.connect(relay.url, personToken);
    webBrowser = await TestBrowser.plain({ signedIn: { relayUrl: relay.url, token: personToken } });
  }, 120_000);

  afterAll(async () => {
    await agent?.close().catch(() => {});
    await panelBrowser?.close();
    await webBrowser?.close();
    await relay?.dispose();
  });

  test("the side panel and its options page, light and dark", async () => {
    const page = await panelBrowser.page("sidepanel.html");
    const found: string[] = [];
    for (const screen of SCREENS) {
      await show(page, panelBrowser.url("sidepanel.html"), screen);
      found.push(...(await inBothSchemes(page, screen)));
    }
    await page.close();
    // And the options page, where the person connects the extension.
    const options = await panelBrowser.page("options.html", { width: 800, height: 700 });
    await options.locator("#relay").waitFor({ timeout: STEP_MS });
    found.push(...(await inBothSchemes(options, "options")));
    await options.close();
    expect(found).toEqual([]);
  }, 120_000);

  for (const [name, size] of [
    ["desktop", { width: 1280, height: 800 }],
    ["phone", { width: 390, height: 844 }],
  ] as const) {
    test(`the web inbox on a ${name}, light and dark`, async () => {
      const page = await webBrowser.context.newPage();
      await page.setViewportSize(size);
      await page.goto(`${relay.url}/inbox/`);
      const found: string[] = [];
      for (const screen of SCREENS) {
        await show(page, `${relay.url}/inbox/`, screen);
        await page.locator("[data-connection=live]").waitFor({ timeout: STEP_MS });
        found.push(...(await inBothSchemes(page, screen)));
      }
      await page.close();
      expect(found).toEqual([]);
    }, 120_000);
  }
});
