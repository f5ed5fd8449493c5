// An agent's permission prompt, answered by the person: in the side panel a command shows as a
// command and an edit as its diff, each decided by key with an Undo that takes it back before it
// goes; the command the person edited is the one the agent receives; a notification's Allow lets
// the agent proceed; on a 390×844 phone a new file shows as code and is decided by tap.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { running, until } from "../support/scene.ts";
import { TestBrowser, openWebInbox } from "./harness/browser";
import { PanelScene } from "./harness/panel-scene";
import { STEP_MS, UNDO_MS } from "./harness/timeouts";

const scene = new PanelScene();

const bash = (command: string, project: string) => ({
  tool_name: "Bash",
  input: { command, description: "Remove the build output" },
  tool_use_id: `toolu_${crypto.randomUUID().slice(0, 8)}`,
  cwd: "/home/ada/shop",
  project,
});

const EDIT_DIFF = ["--- a/src/auth.ts", "+++ b/src/auth.ts", "@@ -1,2 +1,2 @@", " export const TTL_S = 60;", "-export const RETRIES = 1;", "+export const RETRIES = 3;", ""].join("\n");

const held = (page: Page) => page.locator("[data-held=undo]");

beforeAll(async () => {
  await scene.start();
  // The panel's clock is the test's to move through an undo window; until then it runs as time does.
  await scene.browser.context.clock.install();
  await scene.openPanel();
}, 120_000);
afterAll(() => scene.close(), 30_000);

describe("in the side panel", () => {
  test("a command shows as a command; `a` is held and `u` takes it back; the edited command is what the agent receives", async () => {
    const decision = running(scene.agent.requestApproval(bash("rm -rf build", "approval-command")));
    expect(await scene.row("Run rm -rf build").textContent({ timeout: STEP_MS })).toContain("Approval");
    await scene.open("Run rm -rf build");
    const command = scene.panel.locator("[data-command]");
    expect(await command.locator("pre").textContent()).toBe("rm -rf build");
    expect(await command.locator("pre").evaluate((el) => getComputedStyle(el).fontFamily)).toMatch(/mono/i);
    expect(await command.locator("[data-cwd]").textContent()).toContain("/home/ada/shop");
    expect(await command.locator("[data-description]").textContent()).toBe("Remove the build output");

    await scene.panel.keyboard.press("a");
    await held(scene.panel).waitFor({ timeout: STEP_MS });
    expect(await held(scene.panel).textContent()).toMatch(/Allowing in \d s/);
    await scene.panel.keyboard.press("u");
    await held(scene.panel).waitFor({ state: "detached", timeout: STEP_MS });
    expect(decision.settled).toBe(false);

    await scene.panel.getByRole("button", { name: /Edit the command/ }).click();
    await scene.panel.getByLabel("The command to run").fill("rm -rf build/tmp");
    await scene.panel.keyboard.press("Escape");
    await scene.panel.keyboard.press("a");
    await held(scene.panel).getByRole("button", { name: "Send now" }).click();
    expect(await decision).toEqual({ behavior: "allow", updatedInput: { command: "rm -rf build/tmp", description: "Remove the build output" } });
  }, 60_000);

  test("an edit shows as its numbered diff, and `d` denies with the message written", async () => {
    const decision = running(
      scene.agent.requestApproval({
        tool_name: "Edit",
        input: { file_path: "src/auth.ts", old_string: "RETRIES = 1", new_string: "RETRIES = 3" },
        tool_use_id: "toolu_edit",
        touches: { type: "edit", file: "src/auth.ts", diff: EDIT_DIFF },
        project: "approval-edit",
      }),
    );
    await scene.open("Edit src/auth.ts");
    const diff = scene.panel.locator("[data-touches=edit] [data-block=diff]");
    await diff.locator("section[data-diff-file]").waitFor({ timeout: STEP_MS });
    expect(await diff.textContent()).toContain("RETRIES = 3");
    expect(await diff.locator(".d2h-ins").count()).toBeGreaterThan(0);
    // Numbered as the file's lines: the changed line is line 2 on both sides.
    expect(await diff.locator("tr", { hasText: "RETRIES = 3" }).locator(".line-num2").textContent()).toContain("2");
    await scene.panel.keyboard.press("r");
    await scene.panel.keyboard.type("Keep one retry.");
    await scene.panel.keyboard.press("Escape");
    await scene.panel.keyboard.press("d");
    await held(scene.panel).waitFor({ timeout: STEP_MS });
    expect(await held(scene.panel).textContent()).toMatch(/Denying in \d s/);
    // A second before the window ends it is still held; then it goes by itself.
    await scene.panel.clock.runFor(UNDO_MS - 1_000);
    await held(scene.panel).filter({ hasText: /Denying in 1 s/ }).waitFor({ timeout: STEP_MS });
    expect(decision.settled).toBe(false);
    await scene.panel.clock.runFor(1_000);
    const said = (await decision) as { behavior: string; message: string };
    expect(said.behavior).toBe("deny");
    expect(said.message).toContain("Keep one retry.");
  }, 60_000);

  test("Allow on the notification lets the agent proceed without opening the inbox", async () => {
    await scene.toList();
    const decision = running(scene.agent.requestApproval(bash("npm test", "approval-notify")));
    const askId = await scene.row("Run npm test").getAttribute("data-ask-row", { timeout: STEP_MS });
    let worker = await scene.browser.worker();
    const id = await until(
      async () => {
        worker = await scene.browser.worker();
        return Object.keys(await worker.evaluate(() => chrome.notifications.getAll())).find((n) => n.startsWith(`ask:${askId}:`));
      },
      `a notification for ${askId}`,
      STEP_MS,
      100,
    );
    expect(id).toBe(`ask:${askId}:approval`);
    // Chrome tells the worker of a click by dispatching this event; the worker's own listener runs.
    await worker.evaluate((n) => (chrome.notifications.onButtonClicked as unknown as { dispatch(id: string, index: number): void }).dispatch(n, 0), id);
    expect(await decision).toEqual({ behavior: "allow", updatedInput: { command: "npm test", description: "Remove the build output" } });
  }, 30_000);
});

test("on a phone, a new file shows as code, a tap is held with Undo, and Deny and stop stops the agent", async () => {
  const browser = await TestBrowser.plain({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, signedIn: { relayUrl: scene.relay.url, token: scene.personToken } });
  try {
    const page = await browser.context.newPage();
    await openWebInbox(page, scene.relay.url);
    const decision = running(
      scene.agent.requestApproval({ tool_name: "Write", input: { file_path: "notes/plan.md", content: "# Plan\n\nShip on Monday.\n" }, tool_use_id: "toolu_write", project: "approval-phone" }),
    );
    await scene.open("Write notes/plan.md", page);
    const code = page.locator("[data-touches=write] pre");
    expect(await code.first().textContent()).toContain("Ship on Monday.");
    await page.getByRole("button", { name: /^✓ Allow/ }).tap({ timeout: STEP_MS });
    await held(page).waitFor({ timeout: STEP_MS });
    await held(page).getByRole("button", { name: /Undo/ }).tap({ timeout: STEP_MS });
    await held(page).waitFor({ state: "detached", timeout: STEP_MS });
    expect(decision.settled).toBe(false);
    await page.getByRole("button", { name: "Deny and stop" }).tap({ timeout: STEP_MS });
    await held(page).getByRole("button", { name: "Send now" }).tap({ timeout: STEP_MS });
    const said = (await decision) as { behavior: string; interrupt?: boolean };
    expect(said).toMatchObject({ behavior: "deny", interrupt: true });
  } finally {
    await browser.close();
  }
}, 60_000);
