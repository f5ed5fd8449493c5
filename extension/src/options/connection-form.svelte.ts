import type { Whoami } from "@loopback/shared/generated/types";
import { browser } from "wxt/browser";
import { RelayClient, normalizeBase } from "../relay/relay-client";
import { RelayError } from "../relay/relay-error";
import { TOKEN_COMMAND, notAPersonToken } from "../relay/person-token";
import type { RevisionGap } from "../relay/revision";
import type { WorkerMessage } from "../worker/messages";
import { readSettings, readToken, writeSettings, writeToken } from "../worker/storage-items";

/** Where `npm run relay` listens by default, so a relay on this machine needs no typing. */
export const DEFAULT_RELAY_URL = "http://127.0.0.1:8370";

export type TestResult =
  | { ok: true; who: Whoami; revision: RevisionGap; base: string }
  | { ok: false; reason: string };

/** The options page's form: the relay's address, the person's token, and what testing them found. */
export class ConnectionForm {
  relayUrl = $state("");
  token = $state("");
  notify = $state(true);
  busy = $state(false);
  result = $state<TestResult | null>(null);
  saved = $state(false);
  hasToken = $state(false);

  async load(): Promise<void> {
    const [settings, token] = await Promise.all([readSettings(), readToken()]);
    this.relayUrl = settings.relayUrl || DEFAULT_RELAY_URL;
    this.notify = settings.notify;
    this.hasToken = !!token;
    // The stored token is never shown; an empty field keeps it.
  }

  /** Tests the address and token, and saves them if the relay knows the token. */
  async connect(save: boolean): Promise<void> {
    this.saved = false;
    let base: string;
    try {
      base = normalizeBase(this.relayUrl);
    } catch {
      this.result = { ok: false, reason: "Enter the relay's address, starting with http:// or https://." };
      return;
    }
    // Asked for before anything else is awaited: the browser only grants it during the click.
    const granted = await browser.permissions.request({ origins: [originPattern(base)] }).catch(() => false);
    if (!granted) {
      this.result = { ok: false, reason: `Loopback needs permission to reach ${base}. Allow it when the browser asks.` };
      return;
    }
    const token = this.token.trim() || (await readToken());
    if (!token) {
      this.result = { ok: false, reason: `Paste your token: the relay's first start printed it, and ${TOKEN_COMMAND.clone} makes another (see below).` };
      return;
    }
    this.busy = true;
    this.result = null;
    try {
      let revision: RevisionGap = "same";
      const client = new RelayClient({ base, token, onRevision: (gap) => (revision = gap) });
      const who = await client.whoami(AbortSignal.timeout(10_000));
      const refused = await notAPersonToken(client, AbortSignal.timeout(10_000));
      if (refused) {
        this.result = { ok: false, reason: refused };
        return;
      }
      if (save) {
        await writeSettings({ relayUrl: base, notify: this.notify });
        await writeToken(token);
        this.relayUrl = base;
        this.token = "";
        this.hasToken = true;
        this.saved = true;
        await browser.runtime.sendMessage({ type: "reconnect" } satisfies WorkerMessage).catch(() => {});
      }
      // Shown last: a page closed once it says Connected has kept the token.
      this.result = { ok: true, who, revision, base };
    } catch (e) {
      this.result = { ok: false, reason: explain(e, base) };
    } finally {
      this.busy = false;
    }
  }

  async setNotify(notify: boolean): Promise<void> {
    this.notify = notify;
    const settings = await readSettings();
    await writeSettings({ ...settings, notify });
  }

  async disconnect(): Promise<void> {
    await writeToken("");
    this.hasToken = false;
    this.result = null;
    this.saved = false;
  }
}

/** Match patterns carry no port: `http://127.0.0.1/*` covers every port on that host. */
export function originPattern(base: string): string {
  const url = new URL(base);
  return `${url.protocol}//${url.hostname}/*`;
}

function explain(e: unknown, base: string): string {
  if (e instanceof RelayError) {
    switch (e.kind) {
      case "unreachable":
        return e.status ? e.message : `Could not reach ${base}. Is the relay running, and is the address right?`;
      case "unauthorized":
        return `The relay does not accept this token (401): ${e.message}`;
      case "reload":
        return "The relay is older than this extension: it was rolled back. Install the extension version that matches it.";
      case "refused":
        return e.message;
    }
  }
  if (e instanceof DOMException && e.name === "TimeoutError") return `${base} did not answer within 10 seconds.`;
  return e instanceof Error ? e.message : String(e);
}
