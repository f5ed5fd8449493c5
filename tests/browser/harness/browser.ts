// Real Chromium with the built extension loaded, as the recipe in shared/recipes says: a persistent
// context (the only kind that loads extensions), headless, Debian's /usr/bin/chromium.
import { cpSync, mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page, type Worker } from "playwright-core";
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

/**
 * The Chromium, without the extension, that the web inbox's contexts open in: launched once while
 * any of its contexts is open (or a file holds it, see `holdChromium`), and closed after the last.
 * Each context is a fresh profile of its own (storage, cookies, service workers), so sharing the
 * process shares nothing a test could see; it spares the ~2 s each launch costs.
 */
let webChromium: Promise<Browser> | undefined;
let webChromiumUsers = 0;

async function openWebChromium(): Promise<Browser> {
  webChromiumUsers++;
  try {
    return await (webChromium ??= chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS }));
  } catch (e) {
    webChromium = undefined;
    await releaseWebChromium();
    throw e;
  }
}

async function releaseWebChromium(): Promise<void> {
  if (--webChromiumUsers > 0 || !webChromium) return;
  const closing = webChromium;
  webChromium = undefined;
  await (await closing.catch(() => undefined))?.close();
}

/**
 * Keeps the web inbox's Chromium running between tests that each open and close their own context,
 * so each test gets a fresh context without a fresh launch. Returns what lets it go (in `afterAll`).
 */
export async function holdChromium(): Promise<() => Promise<void>> {
  await openWebChromium();
  return releaseWebChromium;
}

/** Where the web inbox keeps the token it signed in with (extension/web/web-session.svelte.ts). */
const WEB_TOKEN_KEY = "loopback.token";

interface PlainOptions {
  bypassCSP?: boolean;
  hasTouch?: boolean;
  isMobile?: boolean;
  viewport?: { width: number; height: number };
  /**
   * Starts signed in to the web inbox of `relayUrl` with `token`, as its sign-in form leaves it, for
   * tests of what comes after; web-inbox.test.ts signs in through the form.
   */
  signedIn?: { relayUrl: string; token: string };
}

export class TestBrowser {
  private constructor(
    readonly context: BrowserContext,
    readonly extensionId: string,
    /** The profile folder of a Chromium of its own; none for a context of the shared web Chromium. */
    readonly profile?: string,
    /** Whether the extension may reach the relays on this machine already (a profile it was allowed in). */
    private readonly hostAllowed = false,
  ) {}

  /**
   * Chromium with the extension loaded. `installed` is a profile to start from, copied (see
   * `installedProfile`): the extension already installed there and allowed to reach this machine's
   * relays, as a person's browser is once they connected it. Without it, a profile from nothing.
   */
  static async withExtension(installed = process.env[INSTALLED_PROFILE_ENV]): Promise<TestBrowser> {
    const profile = mkdtempSync(join(tmpdir(), "loopback-chromium-"));
    const copied = Boolean(installed && existsSync(installed));
    if (copied) cpSync(installed!, profile, { recursive: true });
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [`--disable-extensions-except=${EXTENSION_DIR}`, `--load-extension=${EXTENSION_DIR}`, ...FLAGS],
    });
    const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker"));
    const extensionId = new URL(worker.url()).host;
    // A fresh install opens the options page (shipped behaviour), possibly in a tab a test has just
    // opened: wait for it first, so no test's navigation races with it. Chromium installs an
    // extension loaded from the command line again at every launch, from a copied profile too.
    const options = `chrome-extension://${extensionId}/options.html`;
    for (const deadline = Date.now() + 10_000; !context.pages().some((p) => p.url().startsWith(options)) && Date.now() < deadline; ) await Bun.sleep(25);
    return new TestBrowser(context, extensionId, profile, copied);
  }

  /**
   * Chromium without the extension, for the web inbox: a fresh context (its own storage) in the
   * shared web Chromium. `bypassCSP` ignores the pages' Content-Security-Policy, `hasTouch` and
   * `isMobile` make it a phone's touch screen.
   */
  static async plain(options: PlainOptions = {}): Promise<TestBrowser> {
    const { signedIn, ...contextOptions } = options;
    const browser = await openWebChromium();
    try {
      // Signed in: the token where the web inbox's sign-in keeps it, in its origin's storage.
      const storageState = signedIn && { cookies: [], origins: [{ origin: new URL(signedIn.relayUrl).origin, localStorage: [{ name: WEB_TOKEN_KEY, value: signedIn.token }] }] };
      return new TestBrowser(await browser.newContext({ ...contextOptions, storageState }), "");
    } catch (e) {
      await releaseWebChromium();
      throw e;
    }
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
    // The API is bound as the page's document is created: the page's own list of extensions, slow to
    // render and not what is tested, is not waited for.
    await admin.goto(`chrome://extensions/?id=${this.extensionId}`, { waitUntil: "commit" });
    await admin.waitForFunction(() => typeof (globalThis as unknown as { chrome?: { developerPrivate?: { addHostPermission?: unknown } } }).chrome?.developerPrivate?.addHostPermission === "function", undefined, { timeout: STEP_MS });
    const host = `${new URL(origin).protocol}//${new URL(origin).hostname}/*`;
    await admin.evaluate(
      ([id, pattern]) => (globalThis as unknown as { chrome: { developerPrivate: { addHostPermission(id: string, host: string): Promise<void> } } }).chrome.developerPrivate.addHostPermission(id!, pattern!),
      [this.extensionId, host],
    );
    await admin.close();
  }

  /**
   * Connects the extension to a relay through its options page, as a person does, and closes the
   * page: the one the install opened, when it is still open.
   */
  async connect(relayUrl: string, token: string): Promise<void> {
    if (!this.hostAllowed) await this.allowHost(relayUrl);
    const opened = this.context.pages().find((p) => p.url().startsWith(this.url("options.html")));
    await opened?.setViewportSize({ width: 800, height: 700 });
    const options = opened ?? (await this.page("options.html", { width: 800, height: 700 }));
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

  #closed = false;

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.context.close();
    if (this.profile) rmSync(this.profile, { recursive: true, force: true });
    else await releaseWebChromium();
  }
}

/** Names the profile `withExtension` copies by default (run.ts makes one per run). */
export const INSTALLED_PROFILE_ENV = "LOOPBACK_CHROMIUM_PROFILE";

/**
 * The profile folder of a Chromium in which the extension was installed and allowed to reach this
 * machine's relays (any port of 127.0.0.1), then closed: the caller removes it. Each launch from a
 * copy spares the visit to chrome://extensions: a side panel's browser cost 8 processor-seconds
 * before its test began, 4 from a copy (connecting on the install's own options page), ~20 times a run.
 */
export async function installedProfile(): Promise<string> {
  const browser = await TestBrowser.withExtension("");
  await browser.allowHost("http://127.0.0.1");
  await browser.context.close();
  return browser.profile!;
}

/** Opens the web inbox a relay serves, in a context that starts signed in to it, and waits until it is live. */
export async function openWebInbox(page: Page, relayUrl: string): Promise<void> {
  await page.goto(`${relayUrl}/inbox/`);
  await page.locator("[data-connection=live]").waitFor({ timeout: STEP_MS });
}

/** The toolbar badge, read from an extension page (the worker may be stopped). */
export function badgeText(page: Page): Promise<string> {
  return page.evaluate(() => chrome.action.getBadgeText({}));
}
