// The side panel by keyboard alone, with asks waiting and asks already closed: the selection starts
// on the first ask waiting, j/k skip closed asks unless the person goes to history (h), a reply moves
// on to the next ask waiting, and `a` approves only after an undo window.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Ask, Reply, ToolReply } from "@loopback/shared/generated/types";
import { PanelScene } from "./harness/panel-scene";
import { STEP_MS, UNDO_MS } from "./harness/timeouts";

const scene = new PanelScene();

const row = (title: string) => scene.row(title);
const selectedTitle = () => scene.panel.locator(".row.selected .title").textContent();
const openTitle = () => scene.panel.locator("article[data-ask] h1").textContent({ timeout: STEP_MS });

/** Replies as the person through the relay's REST API, as another device of theirs would. */
async function replyAs(id: string, reply: Reply): Promise<void> {
  const response = await fetch(`${scene.relay.url}/api/v1/asks/${id}/reply`, {
    method: "POST",
    headers: { Authorization: `Bearer ${scene.personToken}`, "Content-Type": "application/json" },
    body: JSON.stringify(reply),
  });
  if (!response.ok) throw new Error(`reply refused: ${response.status} ${await response.text()}`);
}

async function idOf(title: string): Promise<string> {
  const response = await fetch(`${scene.relay.url}/api/v1/snapshot`, { headers: { Authorization: `Bearer ${scene.personToken}` } });
  const { open, recent } = (await response.json()) as { open: Ask[]; recent: Ask[] };
  const ask = [...open, ...recent].find((a) => JSON.stringify(a.prompt).includes(title));
  if (!ask) throw new Error(`no ask "${title}"`);
  return ask.id;
}

/** The ask's status as the relay has it. */
async function statusOf(title: string): Promise<string> {
  const response = await fetch(`${scene.relay.url}/api/v1/asks/${await idOf(title)}`, { headers: { Authorization: `Bearer ${scene.personToken}` } });
  return ((await response.json()) as { status: string }).status;
}

async function until(what: () => Promise<boolean>, label: string) {
  const deadline = Date.now() + STEP_MS;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await Bun.sleep(50);
  }
}

describe("the keyboard flow", () => {
  const pending: Promise<ToolReply>[] = [];

  beforeAll(async () => {
    await scene.start();
    // Two asks answered a moment ago, seen in the panel; then three arrive, waiting.
    for (const question of ["Closed first?", "Closed second?"]) {
      const waiting = scene.agent.waitFor("ask_question", { question, project: "inventory" });
      await until(async () => !!(await idOf(question).catch(() => null)), question);
      await replyAs(await idOf(question), { outcome: "dismissed" });
      await waiting;
    }
    // The panel's clock is the test's to move past an undo window; until then it runs as time does.
    await scene.browser.context.clock.install();
    await scene.openPanel();
    await row("Closed second?").waitFor({ timeout: STEP_MS });

    // Each opened before the next is asked, so the three are listed in this order.
    const opened = (title: string) => until(async () => !!(await idOf(title).catch(() => null)), title);
    pending.push(scene.agent.waitFor("ask_question", { question: "Waiting oldest?", options: [{ label: "Yes" }, { label: "No" }], project: "inventory" }));
    await opened("Waiting oldest?");
    pending.push(scene.agent.waitFor("request_review", { title: "Waiting review", content: [{ type: "markdown", text: "A small change." }], project: "inventory" }));
    await opened("Waiting review");
    pending.push(scene.agent.waitFor("ask_question", { question: "Waiting newest?", options: [{ label: "Yes" }, { label: "No" }], project: "inventory" }));
    await row("Waiting newest?").waitFor({ timeout: STEP_MS });
  }, 120_000);

  afterAll(() => scene.close(), 30_000);

  test("starts on the first ask waiting, and j/k walk only the open asks", async () => {
    expect(await selectedTitle()).toBe("Waiting newest?");
    await scene.panel.keyboard.press("j");
    expect(await selectedTitle()).toBe("Waiting review");
    await scene.panel.keyboard.press("j");
    expect(await selectedTitle()).toBe("Waiting oldest?");
    // The end of the open asks: j stays, rather than walking into the closed ones.
    await scene.panel.keyboard.press("j");
    expect(await selectedTitle()).toBe("Waiting oldest?");
    await scene.panel.keyboard.press("k");
    await scene.panel.keyboard.press("k");
    expect(await selectedTitle()).toBe("Waiting newest?");
  }, 30_000);

  test("h goes to the closed asks and back", async () => {
    await scene.panel.keyboard.press("h");
    expect(await selectedTitle()).toBe("Closed second?");
    await scene.panel.keyboard.press("j");
    expect(await selectedTitle()).toBe("Closed first?");
    await scene.panel.keyboard.press("h");
    expect(await selectedTitle()).toBe("Waiting newest?");
  }, 30_000);

  test("after a reply, the next ask waiting opens", async () => {
    await scene.panel.keyboard.press("Enter");
    expect(await openTitle()).toBe("Waiting newest?");
    await scene.panel.keyboard.press("1");
    await scene.panel.keyboard.press("Control+Enter");
    await until(async () => (await openTitle()) === "Waiting review", "the review to open");
    expect((await pending[2]!).reply).toEqual({ outcome: "answered", selected: ["Yes"] });
  }, 30_000);

  test("a approves only after an undo window; u takes it back", async () => {
    let settled = false;
    void pending[1]!.then(() => (settled = true));
    await scene.panel.keyboard.press("a");
    const held = scene.panel.locator("[data-held=undo]");
    await held.waitFor({ timeout: STEP_MS });
    expect(await held.textContent()).toMatch(/Approving in \d s/);
    await scene.panel.keyboard.press("u");
    await held.waitFor({ state: "detached", timeout: STEP_MS });
    await scene.panel.clock.runFor(UNDO_MS + 1_000);
    // Past the window, nothing reached the agent, and the review still waits for a verdict.
    expect(settled).toBe(false);
    expect(await scene.panel.locator("article[data-ask][data-status=awaiting_human] h1").textContent()).toBe("Waiting review");
    expect(await statusOf("Waiting review")).toBe("awaiting_human");

    await scene.panel.keyboard.press("a");
    await held.waitFor({ timeout: STEP_MS });
    // A second before the window ends it is still held, and nothing has gone.
    await scene.panel.clock.runFor(UNDO_MS - 1_000);
    await held.filter({ hasText: /Approving in 1 s/ }).waitFor({ timeout: STEP_MS });
    expect(settled).toBe(false);
    expect(await statusOf("Waiting review")).toBe("awaiting_human");
    // Once the window has passed it is sent by itself.
    await scene.panel.clock.runFor(1_000);
    expect((await pending[1]!).reply).toEqual({ outcome: "approved" });
    await until(async () => (await openTitle()) === "Waiting oldest?", "the last question to open");
    await scene.panel.keyboard.press("2");
    await scene.panel.keyboard.press("Control+Enter");
    expect((await pending[0]!).reply).toEqual({ outcome: "answered", selected: ["No"] });
  }, 60_000);

  test("a new ask takes the selection from a row that is not the person's move, and an open ask hears of it", async () => {
    const asked = scene.agent.waitFor("ask_question", { question: "Agent's move soon?", project: "inventory" });
    await scene.toList();
    await row("Agent's move soon?").waitFor({ timeout: STEP_MS });
    await replyAs(await idOf("Agent's move soon?"), { outcome: "follow_up", question: "Which one do you mean?" });
    await asked;
    await scene.toList();
    await scene.panel.keyboard.press("j");
    await until(async () => (await selectedTitle()) === "Agent's move soon?", "the agent's-move row to be selected");

    void scene.agent.waitFor("ask_question", { question: "Fresh one?", project: "inventory" }).catch(() => {});
    await row("Fresh one?").waitFor({ timeout: STEP_MS });
    await until(async () => (await selectedTitle()) === "Fresh one?", "the new ask to take the selection");
    await scene.panel.keyboard.press("Enter");
    expect(await openTitle()).toBe("Fresh one?");

    void scene.agent.waitFor("ask_question", { question: "Another one?", project: "inventory" }).catch(() => {});
    const news = scene.panel.locator("[data-new-ask]");
    await news.waitFor({ timeout: STEP_MS });
    expect(await news.textContent()).toContain("Another one?");
    await news.getByRole("button").click();
    expect(await openTitle()).toBe("Another one?");
  }, 60_000);
});
