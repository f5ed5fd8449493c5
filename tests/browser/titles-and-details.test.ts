// How titles and the small things read in real Chromium: inline markdown in titles with identifiers
// whole, a markdown question shown once, and the details a person trips over (the relay address, the
// token field, an empty inbox, "with everything beneath", task lists, whose agent it is).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { TestBrowser, ensureBuilt } from "./harness/browser";
import { PanelScene } from "./harness/panel-scene";
import { STEP_MS } from "./harness/timeouts";
import { RelayProcess } from "../support/relay-process.ts";

const scene = new PanelScene();
const row = (title: string) => scene.row(title);
const open = (title: string) => scene.open(title);

describe("titles and details", () => {
  // "me" is the name the relay gives its first person when it knows no other.
  beforeAll(() => scene.start("me"), 120_000);
  afterAll(() => scene.close(), 30_000);

  test("the options page has the local relay's address filled in, and a token field that reads whole", async () => {
    const options = await scene.browser.page("options.html", { width: 800, height: 700 });
    expect(await options.locator("#relay").inputValue()).toBe("http://127.0.0.1:8370");
    const token = options.locator("#token");
    const placeholder = (await token.getAttribute("placeholder"))!;
    expect(placeholder).not.toContain("`");
    // The placeholder fits the field: its text is narrower than the box it sits in.
    const fits = await token.evaluate((input: HTMLInputElement) => {
      const style = getComputedStyle(input);
      const context = document.createElement("canvas").getContext("2d")!;
      context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      return context.measureText(input.placeholder).width <= room;
    });
    expect(fits).toBe(true);
    await options.close();
  }, 30_000);

  test("an empty inbox offers no history to load", async () => {
    await scene.openPanel();
    await scene.panel.getByText("Nothing needs you right now").waitFor({ timeout: STEP_MS });
    expect(await scene.panel.getByRole("button", { name: "Load older" }).count()).toBe(0);
  }, 30_000);

  test("titles show their inline markdown with identifiers whole, in the list and on the ask", async () => {
    void scene.agent.call("request_review", { title: "Rename `sku` to `item_code` in __init__", content: [{ type: "markdown", text: "See the diff." }], project: "inventory" }).catch(() => {});
    await row("Rename").waitFor({ timeout: STEP_MS });
    const title = row("Rename").locator(".title");
    expect(await title.textContent()).toBe("Rename sku to item_code in __init__");
    expect(await title.locator("code").allTextContents()).toEqual(["sku", "item_code"]);
    const id = await open("Rename");
    const heading = scene.panel.locator(`article[data-ask="${id}"] h1`);
    expect(await heading.textContent()).toBe("Rename sku to item_code in __init__");
    expect(await heading.locator("code").allTextContents()).toEqual(["sku", "item_code"]);
  }, 30_000);

  test("a question written in markdown is shown once: its first line as the heading, the rest below", async () => {
    void scene.agent.call("ask_question", { question: "Make `fetch_all` **async**?\n\nIt blocks the event loop for 2 s.", project: "inventory" }).catch(() => {});
    void scene.agent.call("ask_question", { question: "Pass `--force` to the migration?", project: "inventory" }).catch(() => {});
    const first = scene.panel.locator(`article[data-ask="${await open("fetch_all")}"]`);
    expect(await first.locator("h1 strong").textContent()).toBe("async");
    expect((await first.locator(".prompt").textContent())!.trim()).toBe("It blocks the event loop for 2 s.");
    const second = scene.panel.locator(`article[data-ask="${await open("--force")}"]`);
    expect(await second.locator("h1 code").textContent()).toBe("--force");
    expect((await second.textContent())!.split("Pass").length - 1).toBe(1);
  }, 30_000);

  test("says \"Your agent\", never \"me's agent\"", async () => {
    const meta = scene.panel.locator(`article[data-ask="${await open("Rename")}"] .meta`);
    expect(await meta.textContent()).toContain("Your agent");
    expect(await meta.textContent()).not.toContain("me's agent");
  }, 30_000);

  test("offers \"with everything beneath\" only on a point with points beneath it", async () => {
    const first = scene.agent.waitFor("send_briefing", {
      title: "Findings from the import",
      project: "inventory",
      sections: [{ points: [{ title: "Transactions per row" }, { title: "Images resized twice", detail: "- [x] found the hook\n- [ ] found the thumbnailer" }] }],
    });
    const id = await open("Findings from the import");
    const point = (pid: string) => scene.panel.locator(`[data-point="${pid}"]`);
    await point("1").locator("button.head").click();
    expect(await point("1").locator("label.check").textContent()).not.toContain("with everything beneath");
    await scene.panel.getByLabel("Reply on point 1").fill("How many?");
    await scene.panel.getByRole("button", { name: "Send replies" }).click();
    await first;
    void scene.agent.waitFor("answer_briefing", { askId: id, answers: [{ point: "1", answer: "Thousands.", points: [{ title: "Batch them" }] }] }).catch(() => {});
    // The reply moved the panel on to the next ask waiting; back to the briefing.
    await row("Findings from the import").locator(".state").waitFor({ state: "detached", timeout: STEP_MS });
    await open("Findings from the import");
    await point("1.1").waitFor({ timeout: STEP_MS });
    expect(await point("1").locator("label.check").textContent()).toContain("with everything beneath");
    expect(await point("1.1").locator("button.head").textContent()).toContain("Batch them");
  }, 30_000);

  test("a task list has no bullets, and a done item looks done", async () => {
    const point = scene.panel.locator('[data-point="2"]');
    await point.locator("button.head").click();
    const items = point.locator(".markdown li");
    await items.first().waitFor({ timeout: STEP_MS });
    const look = await items.evaluateAll((lis) =>
      lis.map((li) => {
        const box = li.querySelector("input")!;
        return { bullet: getComputedStyle(li).listStyleType, fill: getComputedStyle(box).backgroundColor, checked: box.checked };
      }),
    );
    expect(look.map((l) => l.bullet)).toEqual(["none", "none"]);
    expect(look.map((l) => l.checked)).toEqual([true, false]);
    expect(look[0]!.fill).not.toBe(look[1]!.fill);
  }, 30_000);
});

describe("the web inbox's sign-in", () => {
  test("names the relay it signs in to: its own origin", async () => {
    await ensureBuilt();
    const relay = await new RelayProcess().start();
    const web = await TestBrowser.plain();
    try {
      const page = await web.context.newPage();
      await page.goto(`${relay.url}/inbox/`);
      expect(await page.locator("[data-relay]").textContent({ timeout: STEP_MS })).toContain(relay.url);
    } finally {
      await web.close();
      await relay.dispose();
    }
  }, 60_000);
});
