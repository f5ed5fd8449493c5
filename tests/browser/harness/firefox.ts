// Real Firefox with the built Firefox extension installed, as shared/recipes says: Debian's
// firefox-esr driven headless over WebDriver BiDi by puppeteer-core, the unpacked MV3 build
// installed with `browser.installExtension`.
//
// BiDi will not navigate a tab to a moz-extension:// page, and a web page may not open one. The
// extension opens its own options page when it is installed (as it does for a person), and a
// script evaluated in that page runs in the extension's realm: the panel is opened from there
// with `browser.tabs.create`, the extension's own API.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { ROOT } from "../../support/relay-process.ts";
import { STEP_MS } from "./timeouts";

export const FIREFOX_EXTENSION_DIR = join(ROOT, "extension/.output/firefox-mv3");
export const FIREFOX = process.env.LOOPBACK_FIREFOX ?? "/usr/bin/firefox-esr";
const ADDON_ID = "loopback@loopback.dev";

/** The WebExtension API inside the extension's pages (evaluated there, not here). */
declare const browser: {
  tabs: { create(props: { url: string }): Promise<unknown> };
  runtime: { getURL(path: string): string };
  action: { getBadgeText(details: object): Promise<string> };
  storage: { local: { get(key: string): Promise<Record<string, unknown>> } };
};

export class TestFirefox {
  private constructor(
    readonly browser: Browser,
    /** The options page the extension opened when it was installed. */
    readonly options: Page,
    private readonly profile: string,
  ) {}

  static async withExtension(): Promise<TestFirefox> {
    const profile = mkdtempSync(join(tmpdir(), "loopback-firefox-"));
    const uuid = crypto.randomUUID();
    const ff = await puppeteer.launch({
      browser: "firefox",
      executablePath: FIREFOX,
      headless: true,
      userDataDir: profile,
      extraPrefsFirefox: {
        // An unpacked build is unsigned.
        "xpinstall.signatures.required": false,
        // Headless Firefox has no doorhanger to click Allow on: the host permission the options
        // page asks for (in the person's click) is granted as if they had.
        "extensions.webextOptionalPermissionPrompts": false,
        // A known moz-extension:// host, so the test can tell the extension's pages apart.
        "extensions.webextensions.uuids": JSON.stringify({ [ADDON_ID]: uuid }),
      },
    });
    try {
      await ff.installExtension(FIREFOX_EXTENSION_DIR);
      const options = await findPage(ff, `moz-extension://${uuid}/options.html`);
      return new TestFirefox(ff, options, profile);
    } catch (e) {
      await ff.close();
      throw e;
    }
  }

  /** Opens the extension's panel page in a tab, from inside the extension. */
  async openPanel(): Promise<Page> {
    const url = await this.options.evaluate(() => browser.runtime.getURL("sidepanel.html"));
    await this.options.evaluate((u) => browser.tabs.create({ url: u }).then(() => undefined), url);
    const panel = await findPage(this.browser, url);
    await panel.setViewport({ width: 420, height: 900 });
    return panel;
  }

  /** The toolbar badge, read inside the extension. */
  badgeText(): Promise<string> {
    return this.options.evaluate(() => browser.action.getBadgeText({}));
  }

  storedToken(): Promise<unknown> {
    return this.options.evaluate(() => browser.storage.local.get("token").then((s) => s.token));
  }

  async close(): Promise<void> {
    await this.browser.close();
    rmSync(this.profile, { recursive: true, force: true });
  }
}

/** The tab showing `url`. Over BiDi a tab the extension opened keeps reporting its first URL, so each is asked. */
async function findPage(ff: Browser, url: string): Promise<Page> {
  const deadline = Date.now() + STEP_MS;
  for (;;) {
    for (const page of await ff.pages()) {
      const href = await page.evaluate(() => location.href).catch(() => "");
      if (href === url) return page;
    }
    if (Date.now() > deadline) throw new Error(`no tab showed ${url}`);
    await Bun.sleep(100);
  }
}
