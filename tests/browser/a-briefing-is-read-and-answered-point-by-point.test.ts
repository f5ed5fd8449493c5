// A briefing read and answered by keys, one point at a time, in the side panel (420×900): n and p
// walk its points, unfolding each; r puts the cursor in the reply box of the point the person is on,
// where typing the letters of every shortcut only writes; x marks that point resolved and sends
// nothing; one point's words go to the agent alone while the other points' words and marks wait,
// kept, for the next reply; a resolve alone, which would hand the agent nothing to answer, says so.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ToolReply } from "@loopback/shared/generated/types";
import { running } from "../support/scene.ts";
import { PanelScene } from "./harness/panel-scene";
import { STEP_MS } from "./harness/timeouts";

const scene = new PanelScene();

const BRIEFING = {
  title: "Plan for the nightly import",
  project: "briefing-keys",
  sections: [
    {
      title: "Findings",
      points: [
        { title: "Each row opens its own transaction" },
        { title: "The SKU index is missing", detail: "Every lookup scans **40 000** rows." },
        { title: "Images are resized twice" },
      ],
    },
  ],
};

const point = (id: string) => scene.panel.locator(`[data-point="${id}"]`);
const focused = () =>
  scene.panel.evaluate(() => {
    const el = document.activeElement;
    return `${el?.tagName} ${el?.closest("[data-point]")?.getAttribute("data-point") ?? ""}`;
  });
const statusOf = async (id: string) =>
  ((await (await fetch(`${scene.relay.url}/api/v1/asks/${id}`, { headers: { Authorization: `Bearer ${scene.personToken}` } })).json()) as { status: string }).status;

beforeAll(async () => {
  await scene.start();
  await scene.openPanel();
}, 120_000);
afterAll(() => scene.close(), 30_000);

describe("a briefing by keys, point by point", () => {
  let id: string;
  let first: Promise<ToolReply> & { settled: boolean };

  test("n and p walk the points, each unfolded as the person comes to it", async () => {
    first = running(scene.agent.waitFor("send_briefing", BRIEFING));
    id = await scene.open(BRIEFING.title);
    await scene.panel.keyboard.press("n");
    expect(await focused()).toBe("BUTTON 1");
    await scene.panel.keyboard.press("n");
    expect(await focused()).toBe("BUTTON 2");
    expect(await point("2").locator("button.head").getAttribute("aria-expanded")).toBe("true");
    expect(await point("2").textContent()).toContain("Every lookup scans 40 000 rows.");
    await scene.panel.keyboard.press("p");
    expect(await focused()).toBe("BUTTON 1");
    await scene.panel.keyboard.press("n");
    await scene.panel.keyboard.press("n");
    expect(await focused()).toBe("BUTTON 3");
    // A point with nothing more to say opens on its reply box, not on "No more detail".
    expect(await point("3").textContent()).not.toContain("No more detail");
  }, 60_000);

  test("r writes on the point the person is on, and typing there runs no shortcut", async () => {
    await scene.panel.keyboard.press("r");
    expect(await focused()).toBe("TEXTAREA 3");
    const words = "Drop one resize: which is next? p, x, n, d and r stay words.";
    await scene.panel.keyboard.type(words);
    expect(await scene.panel.getByLabel("Reply on point 3").inputValue()).toBe(words);
    expect(await focused()).toBe("TEXTAREA 3");
    expect(await scene.panel.getByRole("alertdialog").count()).toBe(0);
  }, 60_000);

  test("x marks the point the person is on resolved, and sends nothing", async () => {
    await scene.panel.keyboard.press("Escape");
    await scene.panel.keyboard.press("p");
    expect(await focused()).toBe("BUTTON 2");
    await scene.panel.keyboard.press("x");
    expect(await point("2").getByRole("checkbox").isChecked()).toBe(true);
    expect(await point("2").locator(".tag").textContent()).toBe("Resolving");
    await scene.panel.keyboard.press("x");
    expect(await point("2").getByRole("checkbox").isChecked()).toBe(false);
    await scene.panel.keyboard.press("x");
    expect(await statusOf(id)).toBe("awaiting_human");
    expect(first.settled).toBe(false);
  }, 60_000);

  test("a resolve alone says why it waits for words, and one point's words go alone", async () => {
    const resolveAlone = point("2").locator("[data-send-point]");
    expect(await resolveAlone.isDisabled()).toBe(true);
    expect(await point("2").locator(".alone .why").textContent()).toContain("nothing to answer");
    await point("3").locator("[data-send-point]").click();
    const round1 = await first;
    expect(round1.reply).toEqual({ outcome: "responded", points: [{ point: "3", text: "Drop one resize: which is next? p, x, n, d and r stay words." }] });
    await scene.panel.locator(`article[data-ask="${id}"][data-status=awaiting_agent]`).waitFor({ timeout: STEP_MS });
  }, 60_000);

  test("the points not sent keep their marks for the next reply, which carries them", async () => {
    const second = running(scene.agent.waitFor("answer_briefing", { askId: id, answers: [{ point: "3", answer: "The thumbnailer's." }] }));
    await scene.panel.locator(`article[data-ask="${id}"][data-status=awaiting_human]`).waitFor({ timeout: STEP_MS });
    const head = point("2").locator("button.head");
    if ((await head.getAttribute("aria-expanded")) !== "true") await head.click();
    expect(await point("2").getByRole("checkbox").isChecked()).toBe(true);
    await point("1").locator("button.head").focus();
    await scene.panel.keyboard.press("r");
    expect(await focused()).toBe("TEXTAREA 1");
    await scene.panel.keyboard.type("Batch them.");
    await scene.panel.keyboard.press("Control+Enter");
    const round2 = await second;
    expect(round2.reply).toEqual({ outcome: "responded", points: [{ point: "1", text: "Batch them." }, { point: "2", resolved: true }] });
  }, 60_000);
});
