// A code block in a review, in the side panel (420 px): a 60-line block (ending, as files do, in a
// newline) says "60 lines" and shows all 60, numbered, none cut off; a long line wraps beneath
// itself instead of running out of the box; a 200-line block shows its first lines and a
// "120 more lines" control that shows the rest. Asserted by the boxes Chromium laid out.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Locator } from "playwright-core";
import { PanelScene } from "./harness/panel-scene";
import { STEP_MS } from "./harness/timeouts";

const scene = new PanelScene();

const SIXTY = Array.from({ length: 60 }, (_, i) =>
  i === 30 ? `  const message = "${"a long line that a person must be able to read in full, ".repeat(5)}";` : `  const value${i + 1} = compute(${i + 1});`,
).join("\n") + "\n";
const TWO_HUNDRED = Array.from({ length: 200 }, (_, i) => `step(${i + 1});`).join("\n");

/** How each drawn line sits in its block: inside the visible box, and its number's text. */
function layout(block: Locator) {
  return block.evaluate((figure) => {
    const box = figure.querySelector(".lines")!.getBoundingClientRect();
    const lines = [...figure.querySelectorAll<HTMLElement>(".lines .line")];
    return {
      meta: figure.querySelector(".meta")?.textContent?.trim(),
      count: lines.length,
      visible: lines.filter((l) => {
        const r = l.getBoundingClientRect();
        return r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5 && r.right <= box.right + 0.5;
      }).length,
      numbered: lines.every((l) => getComputedStyle(l, "::before").content === "counter(line)" && getComputedStyle(l).counterIncrement.startsWith("line")),
      tallest: Math.max(...lines.map((l) => l.getBoundingClientRect().height)),
      lineHeight: parseFloat(getComputedStyle(lines[0]!).lineHeight),
      sideways: [...figure.querySelectorAll<HTMLElement>(".lines, pre")].some((el) => el.scrollWidth > el.clientWidth + 1),
    };
  });
}

beforeAll(async () => {
  await scene.start();
  await scene.openPanel();
}, 120_000);
afterAll(() => scene.close(), 30_000);

describe("a code block shows every line", () => {
  test("60 lines say 60, show 60 numbered, and a long one wraps", async () => {
    void scene.agent
      .waitFor("request_review", { title: "Sixty lines of code", project: "code-60", content: [{ type: "code", code: SIXTY, language: "ts", filename: "src/sixty.ts" }] })
      .catch(() => {});
    await scene.open("Sixty lines of code");
    const block = scene.panel.locator("[data-block=code]");
    await block.locator(".highlighted pre.shiki .line").first().waitFor({ timeout: STEP_MS });
    const seen = await layout(block);
    expect(seen).toMatchObject({ meta: "60 lines", count: 60, visible: 60, numbered: true, sideways: false });
    // The long line took more than one row, beneath itself.
    expect(seen.tallest).toBeGreaterThan(seen.lineHeight * 1.5);
    expect(await block.locator("[data-more-lines]").count()).toBe(0);
  }, 60_000);

  test("200 lines show the first ones and a control that shows the rest", async () => {
    void scene.agent
      .waitFor("request_review", { title: "Two hundred lines of code", project: "code-200", content: [{ type: "code", code: TWO_HUNDRED, language: "ts" }] })
      .catch(() => {});
    await scene.open("Two hundred lines of code");
    const block = scene.panel.locator("[data-block=code]");
    await block.locator(".highlighted pre.shiki .line").first().waitFor({ timeout: STEP_MS });
    const more = block.locator("[data-more-lines]");
    expect(await more.textContent()).toContain("120 more lines");
    const folded = await layout(block);
    expect(folded).toMatchObject({ meta: "200 lines", count: 200 });
    expect(folded.visible).toBeGreaterThanOrEqual(60);
    expect(folded.visible).toBeLessThan(200);
    // The control sits right beneath the last line shown.
    const [linesBottom, moreTop] = await block.evaluate((f) => [f.querySelector(".lines")!.getBoundingClientRect().bottom, f.querySelector("[data-more-lines]")!.getBoundingClientRect().top]);
    expect(Math.abs(moreTop! - linesBottom!)).toBeLessThan(2);
    await more.click();
    expect((await layout(block)).visible).toBe(200);
  }, 60_000);
});
