// What the side panel and the web inbox say is true, and nothing the person writes is lost: words on a
// sub-point under a resolved point, a reply sent while the relay is down (held, then sent once it is
// back, and only once), and a revoked token said in the body. A real relay, stopped and restarted,
// and a token revoked with its CLI while the panel is open.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Ask } from "@loopback/shared/generated/types";
import type { Page } from "playwright-core";
import { TestAgent } from "./harness/agent";
import { TestBrowser, openWebInbox } from "./harness/browser";
import { PanelScene } from "./harness/panel-scene";
import { STEP_MS } from "./harness/timeouts";
import { until } from "../support/scene.ts";

const scene = new PanelScene();

/** The ask as the relay holds it, read with a person's token. */
async function stored(id: string, token = scene.personToken): Promise<Ask> {
  const response = await fetch(`${scene.relay.url}/api/v1/asks/${id}`, { headers: { Authorization: `Bearer ${token}` } });
  return (await response.json()) as Ask;
}

const humanTurns = (ask: Ask) => ask.thread.filter((e) => e.author === "human").length;

beforeAll(() => scene.start(), 120_000);
afterAll(() => scene.close());

describe("what the side panel says is true, and nothing written is lost", () => {
  beforeAll(() => scene.openPanel(), 60_000);

  test("words written on a sub-point reach the agent when the point above it is resolved", async () => {
    const first = scene.agent.waitFor("send_briefing", {
      title: "Indexes for the import",
      project: "inventory",
      sections: [{ points: [{ title: "Add the missing indexes" }, { title: "Drop the unused one" }] }],
    });
    const id = await scene.open("Indexes for the import");
    const point = (pid: string) => scene.panel.locator(`[data-point="${pid}"]`);
    await point("1").locator("button.head").click();
    await scene.panel.getByLabel("Reply on point 1").fill("Which ones?");
    await point("2").locator("button.head").click();
    await point("2").getByRole("checkbox").check();
    await scene.panel.getByRole("button", { name: "Send replies" }).click();
    await first;

    const second = scene.agent.waitFor("answer_briefing", {
      askId: id,
      answers: [{ point: "1", answer: "Two.", points: [{ title: "On sku" }, { title: "On supplier_id" }] }],
    });
    await point("1.1").waitFor({ timeout: STEP_MS });
    await point("1.1").locator("button.head").click();
    await scene.panel.getByLabel("Reply on point 1.1").fill("Make this one unique.");
    await scene.panel.getByRole("button", { name: "Resolve all" }).click();
    // The words stay, can still be changed, and are counted as going along.
    expect(await scene.panel.getByLabel("Reply on point 1.1").isEnabled()).toBe(true);
    expect(await scene.panel.locator("[data-briefing-summary]").textContent()).toContain("1 written on");
    await scene.panel.getByRole("button", { name: "Send replies" }).click();
    expect((await second).reply).toEqual({
      outcome: "responded",
      points: [
        { point: "1", resolved: true },
        { point: "1.1", text: "Make this one unique." },
      ],
    });
  }, 60_000);

  test("while the relay is down the ask says so, a reply is held, and it is sent once the relay is back", async () => {
    void scene.agent.call("ask_question", { question: "Deploy the hotfix tonight?", options: [{ label: "Yes" }, { label: "No" }], project: "ops" }).catch(() => {});
    const id = await scene.open("Deploy the hotfix tonight?");
    const article = scene.panel.locator(`article[data-ask="${id}"]`);
    await article.locator(".presence.live").waitFor({ timeout: STEP_MS });

    await scene.agent.close();
    await scene.relay.stop();
    // Where the person looks: the ask's waiting line and beside Send, not only the header.
    await article.locator("[data-presence=outage]").waitFor({ timeout: STEP_MS });
    expect(await article.locator(".presence.live").count()).toBe(0);
    await article.locator("[data-outage]").waitFor({ timeout: STEP_MS });
    // One notice, in the same words in both places: both read at one instant, as the person sees
    // them (the inbox keeps trying meanwhile, and says "Connecting to the relay" in both during a
    // try: read one after the other, a try begun between the two reads made them differ).
    const said = await until(
      async () => {
        const both = await article.evaluate((el) => [el.querySelector("[data-presence=outage]")?.textContent?.trim(), el.querySelector("[data-outage]")?.textContent]);
        return both[0]?.startsWith("Can't reach the relay") && both;
      },
      "the ask says it cannot reach the relay",
      STEP_MS,
    );
    expect(said).toEqual(["Can't reach the relay — reconnecting", "Can't reach the relay — reconnecting. A reply you send now is kept, and sent when it is back."]);

    await scene.panel.keyboard.press("2");
    await scene.panel.getByLabel("Your own words").fill("Wait for the morning shift.");
    await scene.panel.keyboard.press("Control+Enter");
    await article.locator("[data-held=offline]").waitFor({ timeout: STEP_MS });
    expect(await article.getByRole("alert").count()).toBe(0);

    await scene.relay.start();
    await scene.reconnectAgent();
    await scene.panel.locator("[data-connection=live]").waitFor({ timeout: 45_000 });
    // Sent by itself: the agent checking back finds the reply, and the ask moved on.
    const reply = await scene.agent.waitFor("wait_for_reply", { askId: id });
    expect(reply.reply).toEqual({ outcome: "answered", selected: ["No"], text: "Wait for the morning shift." });
    await article.locator("[data-held]").waitFor({ state: "detached", timeout: STEP_MS });
    expect(await scene.panel.getByRole("alert").count()).toBe(0);
    expect(humanTurns(await stored(id))).toBe(1);
  }, 120_000);

  test("after the token is revoked, the body says so instead of an empty inbox", async () => {
    const list = scene.relay.cli(["token", "list"]).stdout;
    const tokenId = list.split("\n").find((line) => line.includes("/Ada") && !/\bagent\b/.test(line))!.split(/\s+/)[0]!;
    expect(scene.relay.cli(["token", "revoke", tokenId]).exitCode).toBe(0);
    // The relay closes the revoked token's socket with 4401 within its revocation check (2 s).
    const refused = scene.panel.locator("[data-refused]");
    await scene.toList();
    await refused.waitFor({ timeout: 45_000 });
    expect(await refused.textContent()).toContain("no longer accepts your token");
    expect(await scene.panel.locator(".list").textContent()).not.toContain("Nothing needs you right now");
    await scene.panel.locator("[data-connection=bad]").waitFor({ timeout: STEP_MS });
  }, 90_000);
});

describe("the web inbox, when a reply's response is lost", () => {
  let web: TestBrowser;
  let page: Page;
  let graceToken: string;
  let graceAgentToken: string;

  beforeAll(async () => {
    graceToken = await scene.relay.token("Grace");
    graceAgentToken = await scene.relay.token("Grace", { agent: true });
    web = await TestBrowser.plain({ signedIn: { relayUrl: scene.relay.url, token: graceToken } });
    page = await web.context.newPage();
    await page.setViewportSize({ width: 1200, height: 800 });
    await openWebInbox(page, scene.relay.url);
  }, 60_000);

  afterAll(async () => {
    await web?.close();
  });

  test("does not send a reply twice when the relay took it but the answer never came back", async () => {
    const grace = await TestAgent.connect(scene.relay.url, graceAgentToken);
    const waiting = grace.waitFor("ask_question", { question: "Rotate the signing key?", options: [{ label: "Rotate" }, { label: "Keep" }], project: "ops" });
    const id = await scene.open("Rotate the signing key?", page);
    let posts = 0;
    // The request reaches the real relay, which commits it; only its answer is lost on the way back.
    await page.route("**/api/v1/asks/*/reply", async (route) => {
      posts++;
      await route.fetch();
      await route.abort("connectionreset");
    });
    await page.keyboard.press("1");
    await page.keyboard.press("Control+Enter");
    expect((await waiting).reply).toEqual({ outcome: "answered", selected: ["Rotate"] });
    // The socket shows the turn taken, so the held copy is let go instead of being sent again.
    await page.locator(`[data-ask-row="${id}"]`, { hasText: "Answered" }).waitFor({ timeout: STEP_MS });
    await Bun.sleep(1_000);
    expect(posts).toBe(1);
    expect(humanTurns(await stored(id, graceToken))).toBe(1);
    expect(await page.getByRole("alert").count()).toBe(0);
    await grace.close();
  }, 60_000);
});
