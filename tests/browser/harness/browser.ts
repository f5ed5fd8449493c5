// Real Chromium with the built extension loaded, as the recipe in shared/recipes says: a persistent
// context (the only kind that loads extensions), headless, Debian's /usr/bin/chromium.
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page, type Worker } from "playwright-core";
import { STEP_MS } from "./timeouts";
import { ROOT } from "../../support/relay-process.ts";

export const EXTENSION_DIR = join(ROOT, "extension/.output/chrome-mv3");
export const WEB_INBOX_DIR = join(ROOT, "extension/.output/web");
export const CHROMIUM = process.env.LOOPBACK_CHROMIUM ?? "/usr/bin/chromium";

let building: Promise<void> | null = null;

/** Builds the extension and the web inbox once per run, so the tests never drive a stale build. */
export function ensureBuilt(): Promise<void> {
  const built = [join(EXTENSION_DIR, "manifest.json"), join(ROOT, "extension/.output/firefox-mv3/manifest.json"), join(WEB_INBOX_DIR, "index.html")];
  if (process.env.LOOPBACK_E2E_SKIP_BUILD && built.every((file) => existsSync(file))) {
    return Promise.resolve();
  }
  building ??= (async () => {
    const child = Bun.spawn(["npm", "run", "build", "-w", "extension"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    if (code !== 0) throw new Error(`The extension build failed:\n${out}\n${err}`);
  })();
  return building;
}

const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

export class TestBrowser {
  private constructor(
    readonly context: BrowserContext,
    readonly extensionId: string,
    private readonly profile: string,
  ) {}

  /** Chromium with the extension loaded. */
  static async withExtension(): Promise<TestBrowser> {
    const profile = mkdtempSync(join(tmpdir(), "loopback-chromium-"));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [`--disable-extensions-except=${EXTENSION_DIR}`, `--load-extension=${EXTENSION_DIR}`, ...FLAGS],
    });
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker"));
    const extensionId = new URL(worker.url()).host;
    // A fresh install opens the options page (shipped behaviour), possibly in a tab a test has just
    // opened: wait for it first, so no test's navigation races with it.
    const options = `chrome-extension://${extensionId}/options.html`;
    for (const deadline = Date.now() + 10_000; !context.pages().some((p) => p.url().startsWith(options)) && Date.now() < deadline; ) await Bun.sleep(25);
    return new TestBrowser(context, extensionId, profile);
  }

  /**
   * Chromium without the extension, for the web inbox; `bypassCSP` ignores the pages'
   * Content-Security-Policy, `hasTouch` and `isMobile` make it a phone's touch screen.
   */
  static async plain(options: { bypassCSP?: boolean; hasTouch?: boolean; isMobile?: boolean; viewport?: { width: number; height: number } } = {}): Promise<TestBrowser> {
    const profile = mkdtempSync(join(tmpdir(), "loopback-chromium-"));
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, ...options });
    return new TestBrowser(context, "", profile);
  }

  url(path: string): string {
    return `chrome-extension://${this.extensionId}/${path}`;
  }

  /**
   * Allows the extension to reach the relay's host, as the person does by clicking Allow when the
   * options page asks. Headless Chromium has no prompt to click, so this goes through the same
   * switch chrome://extensions offers under "Site access".
   */
  async allowHost(origin: string): Promise<void> {
    const admin = await this.context.newPage();
    await admin.goto(`chrome://extensions/?id=${this.extensionId}`);
    const host = `${new URL(origin).protocol}//${new URL(origin).hostname}/*`;
    await admin.evaluate(
      ([id, pattern]) => (globalThis as unknown as { chrome: { developerPrivate: { addHostPermission(id: string, host: string): Promise<void> } } }).chrome.developerPrivate.addHostPermission(id!, pattern!),
      [this.extensionId, host],
    );
    await admin.close();
  }

  /** Connects the extension to a relay through its options page, as a person does, and closes the page. */
  async connect(relayUrl: string, token: string): Promise<void> {
    await this.allowHost(relayUrl);
    const options = await this.page("options.html", { width: 800, height: 700 });
    await options.fill("#relay", relayUrl);
    await options.fill("#token", token);
    await options.click("text=Save and connect");
    await options.locator("[data-result=ok]").waitFor({ timeout: 15_000 });
    await options.close();
  }

  async page(path: string, size = { width: 420, height: 900 }): Promise<Page> {
    const page = await this.context.newPage();
    await page.setViewportSize(size);
    await page.goto(this.url(path));
    return page;
  }

  /** The worker as it is now: after a stop, Chromium starts a new one. */
  async worker(): Promise<Worker> {
    const live = this.context.serviceWorkers().filter((w) => w.url().startsWith(this.url("")));
    return live.at(-1) ?? (await this.context.waitForEvent("serviceworker"));
  }

  /** Stops the extension's service worker, as Chrome does to an idle one. */
  async stopWorker(from: Page): Promise<void> {
    const cdp = await this.context.newCDPSession(from);
    await cdp.send("ServiceWorker.enable");
    await cdp.send("ServiceWorker.stopAllWorkers");
    await cdp.detach();
  }

  async close(): Promise<void> {
    await this.context.close();
    rmSync(this.profile, { recursive: true, force: true });
  }
}

/** The toolbar badge, read from an extension page (the worker may be stopped). */
/** Opens the web inbox a relay serves, signs in with a person's token, and waits until it is live. */
export async function signInToWebInbox(page: Page, relayUrl: string, token: string): Promise<void> {
  await page.goto(`${relayUrl}/inbox/`);
  await page.fill("#token", token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.locator("[data-connection=live]").waitFor({ timeout: STEP_MS });
}

export function badgeText(page: Page): Promise<string> {
  return page.evaluate(() => chrome.action.getBadgeText({}));
}
