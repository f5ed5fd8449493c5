// The web inbox's service worker in real Chromium: a push the relay sent, decrypted by our push
// service, is delivered to the worker through the DevTools protocol (this machine's Chromium cannot
// reach a real push service); the worker shows it with its actions, and an action's handler sends
// the reply, with the person's token the inbox kept for it, so the agent's MCP call returns.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { REVISION } from "@loopback/shared/generated/revision";
import type { CDPSession, Page, Worker } from "playwright-core";
import { TestAgent } from "./harness/agent";
import { TestBrowser, ensureBuilt, openWebInbox } from "./harness/browser";
import { PushReceiver } from "../support/push-receiver.ts";
import { RelayProcess } from "../support/relay-process.ts";
import { STEP_MS } from "./harness/timeouts";

let relay: RelayProcess;
let push: PushReceiver;
let browser: TestBrowser;
let agent: TestAgent;
let page: Page;
let cdp: CDPSession;
let registrationId: string;
let personToken: string;

interface Shown {
  title: string;
  body: string;
  tag: string;
  actions: { action: string; title: string }[];
}

const shownNotifications = () =>
  page.evaluate(async () =>
    (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, actions: (n as unknown as { actions: { action: string; title: string }[] }).actions.map((a) => ({ action: a.action, title: a.title })) })),
  ) as Promise<Shown[]>;

async function notificationOf(askId: string): Promise<Shown> {
  const deadline = Date.now() + STEP_MS;
  for (;;) {
    const found = (await shownNotifications()).find((n) => n.tag === askId);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no notification for ${askId}`);
    await Bun.sleep(100);
  }
}

/** The inbox's service worker, as Playwright sees it. */
function inboxWorker(): Worker {
  const worker = browser.context.serviceWorkers().find((w) => w.url() === `${relay.url}/inbox/sw.js`);
  if (!worker) throw new Error("the inbox's service worker is not running");
  return worker;
}

/**
 * Presses a notification's action. A system notification cannot be clicked from here, so the test
 * dispatches to the worker the `notificationclick` event the browser would, for the shown
 * notification: the worker's own listener runs. (A dispatched event cannot be kept alive with
 * `waitUntil`, which throws after the listener has started the reply; the reply goes on.)
 */
async function pressAction(askId: string, action: string): Promise<void> {
  await inboxWorker().evaluate(
    async ([tag, chosen]) => {
      const scope = self as unknown as { registration: ServiceWorkerRegistration; dispatchEvent(e: Event): boolean };
      const [notification] = await scope.registration.getNotifications({ tag: tag! });
      if (!notification) throw new Error(`no notification tagged ${tag} to press`);
      const Click = (self as unknown as { NotificationEvent: new (type: string, init: { notification: Notification; action: string }) => Event }).NotificationEvent;
      try {
        scope.dispatchEvent(new Click("notificationclick", { notification, action: chosen! }));
      } catch {
        // See above: waitUntil on an untrusted event.
      }
    },
    [askId, action] as const,
  );
}

describe("the web inbox's notifications", () => {
  beforeAll(async () => {
    await ensureBuilt();
    push = await PushReceiver.start(async () => (await (await fetch(`${relay.url}/api/v1/push/key`, { headers: { Authorization: `Bearer ${personToken}` } })).json()).publicKey);
    relay = await new RelayProcess({ env: { NODE_EXTRA_CA_CERTS: push.caFile, LOOPBACK_PUSH_HOSTS: push.host }, firstPerson: "Grace" }).start();
    personToken = await relay.token("Grace");
    agent = await TestAgent.connect(relay.url, await relay.token("Grace", { agent: true }));
    browser = await TestBrowser.plain({ signedIn: { relayUrl: relay.url, token: personToken } });
    await browser.context.grantPermissions(["notifications"], { origin: relay.url });
    page = await browser.context.newPage();
    cdp = await browser.context.newCDPSession(page);
    const registered = new Promise<string>((resolve) =>
      cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
        const ours = registrations.find((r) => r.scopeURL === `${relay.url}/inbox/` && !r.isDeleted);
        if (ours) resolve(ours.registrationId);
      }),
    );
    await cdp.send("ServiceWorker.enable");
    await openWebInbox(page, relay.url);
    // Pushes reach only an activated worker: wait until it controls the page.
    await page.waitForFunction(async () => (await navigator.serviceWorker.ready).active?.state === "activated" && navigator.serviceWorker.controller !== null, undefined, { timeout: STEP_MS });
    registrationId = await registered;
    // This browser's own push service is out of reach here, so the device is our push service's
    // subscription, registered as the inbox registers one.
    const sub = push.subscribe();
    const added = await fetch(`${relay.url}/api/v1/push/devices`, {
      method: "POST",
      headers: { Authorization: `Bearer ${personToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ endpoint: sub.endpoint, keys: sub.keys, name: "Chromium" }),
    });
    expect(added.status).toBe(201);
    (globalThis as { subscription?: string }).subscription = sub.id;
  }, 120_000);

  afterAll(async () => {
    await agent?.close().catch(() => {});
    await browser?.close();
    await relay?.dispose();
    push?.stop();
  });

  const subscription = () => (globalThis as { subscription?: string }).subscription!;

  /** What the relay pushed about the `n`th ask, as our push service decrypted it, delivered to the worker. */
  async function deliver(n: number) {
    const received = await push.waitFor(subscription(), n);
    const notice = received[n - 1]!.notice;
    // Delivered again until the worker shows it, as a push service redelivers what a device has not
    // taken: a delivery that reaches a worker Chromium is just stopping can be lost (seen only in
    // full runs, once the worker had idled).
    const deadline = Date.now() + STEP_MS;
    for (;;) {
      await cdp.send("ServiceWorker.deliverPushMessage", { origin: relay.url, registrationId, data: JSON.stringify(notice) });
      for (const until = Date.now() + 2_000; Date.now() < until; await Bun.sleep(100)) {
        if ((await shownNotifications()).some((shown) => shown.tag === notice.askId)) return notice;
      }
      if (Date.now() > deadline) return notice;
    }
  }

  test("a two-option question shows its choices, and pressing one answers the agent's call", async () => {
    const question = agent.waitFor("ask_question", { question: "Roll back the migration?\nIt failed on replica 2.", options: [{ label: "Roll back" }, { label: "Keep it" }], project: "billing" });
    const notice = await deliver(1);
    const shown = await notificationOf(notice.askId);
    expect(shown).toEqual({
      title: "Question · billing",
      body: "Roll back the migration?",
      tag: notice.askId,
      actions: [
        { action: "choice:0", title: "Roll back" },
        { action: "choice:1", title: "Keep it" },
      ],
    });
    await pressAction(notice.askId, "choice:1");
    expect((await question).reply).toEqual({ outcome: "answered", selected: ["Keep it"] });
  }, 60_000);

  test("a review shows Approve, and pressing it approves the review", async () => {
    const review = agent.waitFor("request_review", { title: "Drop the legacy endpoint", content: [{ type: "code", code: "app.delete('/v0')", language: "ts" }], project: "api" });
    const notice = await deliver(2);
    const shown = await notificationOf(notice.askId);
    expect(shown).toMatchObject({ title: "Review · api", body: "Drop the legacy endpoint", actions: [{ action: "approve", title: "Approve" }] });
    await pressAction(notice.askId, "approve");
    expect((await review).reply).toEqual({ outcome: "approved" });
  }, 60_000);

  test("an action the relay refuses says so in the notification", async () => {
    const question = agent.waitFor("ask_question", { question: "Already answered?", options: [{ label: "Yes" }, { label: "No" }], project: "ops" });
    const notice = await deliver(3);
    await notificationOf(notice.askId);
    const dismissed = await fetch(`${relay.url}/api/v1/asks/${notice.askId}/reply`, {
      method: "POST",
      headers: { Authorization: `Bearer ${personToken}`, "Content-Type": "application/json" },
      body: JSON.stringify({ outcome: "dismissed" }),
    });
    expect(dismissed.status).toBe(200);
    expect((await question).reply).toEqual({ outcome: "dismissed" });
    await pressAction(notice.askId, "choice:0");
    const deadline = Date.now() + STEP_MS;
    let shown = await notificationOf(notice.askId).catch(() => undefined);
    while (!shown?.title.startsWith("Not sent")) {
      // What the relay heard of the ask tells a reply never sent from one whose refusal was not shown.
      if (Date.now() > deadline) throw new Error(`no refusal shown: ${JSON.stringify(shown)}; the relay logged:\n${relay.log.split("\n").filter((l) => l.includes(notice.askId)).join("\n")}`);
      await Bun.sleep(100);
      shown = await notificationOf(notice.askId).catch(() => undefined);
    }
    expect(shown.body).toContain("closed");
    expect(shown.actions).toEqual([]);
  }, 60_000);

  test("an approval shows Allow and Deny, and Allow lets the agent's tool run", async () => {
    const decision = agent.requestApproval({ tool_name: "Bash", input: { command: "npm run deploy\nnpm run smoke" }, tool_use_id: "toolu_push", project: "deploy" });
    const notice = await deliver(4);
    const shown = await notificationOf(notice.askId);
    expect(shown).toMatchObject({
      title: "Approval · deploy",
      body: "Run npm run deploy",
      actions: [
        { action: "allow", title: "Allow" },
        { action: "deny", title: "Deny" },
      ],
    });
    await pressAction(notice.askId, "allow");
    expect(await decision).toEqual({ behavior: "allow", updatedInput: { command: "npm run deploy\nnpm run smoke" } });
  }, 60_000);

  test("the service worker names the revision the inbox speaks on what it sends", async () => {
    const script = await (await fetch(`${relay.url}/inbox/sw.js`)).text();
    expect(script).toContain(`const REVISION = "${REVISION}";`);
  });

  test("the settings list the person's devices, save a device's loudness and remove it", async () => {
    const listed = async () => (await (await fetch(`${relay.url}/api/v1/push/devices`, { headers: { Authorization: `Bearer ${personToken}` } })).json()).items;
    await page.getByRole("button", { name: "Settings" }).click();
    const sheet = page.getByRole("dialog", { name: "Account" });
    await sheet.getByRole("button", { name: "Notify me on this device" }).waitFor({ timeout: STEP_MS });
    const [device] = await listed();
    const row = sheet.locator(`[data-device="${device.id}"]`);
    await row.locator("summary").click();
    expect(await row.locator("summary").textContent()).toContain("Chromium");
    await row.getByLabel("Only these projects").check();
    await row.getByLabel("Projects, separated by commas").fill("billing, api");
    await row.getByLabel("Quiet hours").check();
    await row.getByLabel("Quiet from").fill("21:30");
    await row.getByRole("button", { name: "Save" }).click();
    const timeZone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    const deadline = Date.now() + STEP_MS;
    while (JSON.stringify((await listed())[0]?.loudness) !== JSON.stringify({ projects: ["billing", "api"], quietHours: { from: "21:30", until: "07:00", timeZone } })) {
      if (Date.now() > deadline) throw new Error(`loudness not saved: ${JSON.stringify(await listed())}`);
      await Bun.sleep(100);
    }
    await row.getByRole("button", { name: "Remove" }).click();
    await row.waitFor({ state: "detached", timeout: STEP_MS });
    expect(await listed()).toEqual([]);
  }, 60_000);
});
