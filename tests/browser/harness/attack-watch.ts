// Watches a browser for every way an attack could show itself, and sums up one page at one moment.
import type { BrowserContext, Page } from "playwright-core";
import { findBidiLeaks, findHazards } from "./dom-inspectors";

/**
 * Watches one browser for every way an attack could show itself: the trap function called, a CSP
 * violation, a dialog, a request to a host other than the relay's, a new page or a navigation away.
 * Installed before any page loads, so it sees from the first byte.
 */
export class Watch {
  readonly fired: string[] = [];
  readonly foreign: string[] = [];
  readonly dialogs: string[] = [];
  readonly popups: string[] = [];

  static async install(context: BrowserContext, allowed: (url: URL) => boolean): Promise<Watch> {
    const watch = new Watch();
    await context.exposeBinding("__pwned", ({ frame }, what: string) => void watch.fired.push(`${what} (in ${frame.url()})`));
    await context.addInitScript(() => {
      // Something the CSP blocked had got past the renderers: as bad as if it had run. The one
      // exception: the sanitizer parses the agent's HTML in an inert DOMParser document, and
      // Chromium checks each handler attribute there against this page's CSP as it parses,
      // reporting at the page's document. A handler that reached the live page is reported at its
      // own element (and is a hazard in findHazards besides).
      document.addEventListener("securitypolicyviolation", (e) => {
        if (e.effectiveDirective === "script-src-attr" && e.target === document) return;
        const where = e.target instanceof Element ? e.target.outerHTML.slice(0, 80) : String(e.target);
        (globalThis as unknown as { __pwned(what: string): void }).__pwned(`CSP ${e.effectiveDirective} blocked ${e.blockedURI || "inline"} at ${where}`);
      });
    });
    // Every request is seen, and one for a foreign host recorded and stopped (evil.example would not
    // resolve here anyway, but a failure must not be what keeps this test green).
    await context.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (allowed(url)) return route.continue();
      watch.foreign.push(url.href);
      return route.abort("blockedbyclient");
    });
    const watchPage = (page: Page) => {
      page.on("dialog", (dialog) => {
        watch.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
        void dialog.dismiss().catch(() => {});
      });
      page.on("popup", (popup) => void watch.popups.push(popup.url()));
    };
    context.pages().forEach(watchPage);
    context.on("page", watchPage);
    return watch;
  }

  reset(): void {
    for (const list of [this.fired, this.foreign, this.dialogs, this.popups]) list.length = 0;
  }

  /** What it caught, emptied for the next look. */
  take() {
    const caught = { fired: [...this.fired], foreign: [...this.foreign], dialogs: [...this.dialogs], popups: [...this.popups] };
    this.reset();
    return caught;
  }
}

/** Everything an attack could show, for one page at one moment; an ask is harmless when this is all empty. */
export async function inspect(page: Page, watch: Watch, start: string) {
  return {
    ...watch.take(),
    hazards: await page.evaluate(findHazards),
    bidiLeaks: await page.evaluate(findBidiLeaks),
    // Long unbroken text wraps or scrolls inside its block; the page never scrolls sideways.
    sidewaysPx: Math.max(0, await page.evaluate(() => document.documentElement.scrollWidth - innerWidth)),
    frames: page.frames().length - 1,
    navigatedTo: page.url().split("#")[0] === start ? null : page.url(),
  };
}

export const HARMLESS = { fired: [], foreign: [], dialogs: [], popups: [], hazards: [], bidiLeaks: [], sidewaysPx: 0, frames: 0, navigatedTo: null };
