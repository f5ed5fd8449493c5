// The scene most browser tests play in: a real relay, one person and their agent, and Chromium with
// the extension loaded; the side panel once it is opened, and the ways a person finds an ask in it.
import type { Page } from "playwright-core";
import { RelayProcess } from "../../support/relay-process.ts";
import { TestAgent } from "./agent";
import { TestBrowser, ensureBuilt } from "./browser";
import { STEP_MS } from "./timeouts";

/** The list's row of the ask whose title contains `title`. */
export const row = (page: Page, title: string) => page.locator("[data-ask-row]", { hasText: title });

/** Back to the list (Escape first leaves a text box, if one has the focus). */
export async function toList(page: Page): Promise<void> {
  for (let i = 0; i < 2 && !(await page.locator(".list-pane").count()); i++) await page.keyboard.press("Escape");
  await page.locator(".list-pane").waitFor({ timeout: STEP_MS });
}

/** Opens the ask titled `title` from the list, as a person clicks its row, and returns its id. */
export async function openFromList(page: Page, title: string): Promise<string> {
  await toList(page);
  const id = await row(page, title).getAttribute("data-ask-row", { timeout: STEP_MS });
  await row(page, title).click();
  await page.locator(`article[data-ask="${id}"]`).waitFor({ timeout: STEP_MS });
  return id!;
}

export class PanelScene {
  relay!: RelayProcess;
  browser!: TestBrowser;
  /** Replaced by `reconnectAgent` after the relay restarts. */
  agent!: TestAgent;
  personToken!: string;
  agentToken!: string;
  /** The side panel, once a test has opened it. */
  panel!: Page;

  /** Builds what the browser loads, starts the relay, and connects `person`'s agent and a fresh Chromium. */
  async start(person = "Ada"): Promise<void> {
    await ensureBuilt();
    this.relay = await new RelayProcess({ firstPerson: person }).start();
    this.personToken = await this.relay.token(person);
    this.agentToken = await this.relay.token(person, { agent: true });
    this.agent = await TestAgent.connect(this.relay.url, this.agentToken);
    this.browser = await TestBrowser.withExtension();
  }

  /** Connects the extension through its options page and opens the side panel, live. */
  async openPanel(): Promise<Page> {
    await this.browser.connect(this.relay.url, this.personToken);
    this.panel = await this.browser.page("sidepanel.html");
    await this.panel.locator("[data-connection=live]").waitFor({ timeout: STEP_MS });
    return this.panel;
  }

  /** The agent connects again, as an agent does once the relay is back. */
  async reconnectAgent(): Promise<void> {
    this.agent = await TestAgent.connect(this.relay.url, this.agentToken);
  }

  row(title: string, page: Page = this.panel) {
    return row(page, title);
  }

  toList(page: Page = this.panel): Promise<void> {
    return toList(page);
  }

  open(title: string, page: Page = this.panel): Promise<string> {
    return openFromList(page, title);
  }

  async close(): Promise<void> {
    await this.agent?.close().catch(() => {});
    await this.browser?.close();
    await this.relay?.dispose();
  }
}
