// Revocation reaches what a token already holds open. A token is revoked by the CLI, another process
// writing the same database or another replica. The store keeps a number that moves whenever a token
// may have been revoked (SQLite's `data_version`, a PostgreSQL NOTIFY sent with the revoking commit):
// before anything is sent to open sockets, a moved number means asking the store which of the tokens
// held here are revoked, and telling their holders first. A timer checks every `everyMs` too, for
// what nothing is sent to (sessions, waiting calls). The query names only tokens held here, so its
// cost follows open connections, not tokens.
import type { Gate } from "./gate.ts";
import { isDatabaseAway } from "../storage/database-reach.ts";
import { log } from "../logging/log.ts";

export interface TokenHolder {
  /** Token ids this holder has something open for. */
  held(): Iterable<string>;
  /** These tokens were revoked: close or forget what they hold. */
  revoked(tokenIds: Set<string>): void | Promise<void>;
}

export class RevocationWatch {
  #holders = new Set<TokenHolder>();
  #timer: ReturnType<typeof setInterval>;
  #checking: Promise<void> | null = null;

  /** `tokensVersion` as the last check began. */
  #checked: number;

  constructor(
    private gate: Gate,
    everyMs: number,
    private tokensVersion: () => number = () => 0,
  ) {
    this.#checked = tokensVersion();
    this.#timer = setInterval(() => void this.check().catch((e) => isDatabaseAway(e) || log("auth").warn("revocation check failed", { error: e })), Math.max(everyMs, 50));
    this.#timer.unref?.();
  }

  watch(holder: TokenHolder): () => void {
    this.#holders.add(holder);
    return () => this.#holders.delete(holder);
  }

  /** One check at a time: a slow store must not pile checks up behind each other. */
  check(): Promise<void> {
    this.#checking ??= this.#check().finally(() => (this.#checking = null));
    return this.#checking;
  }

  /**
   * Undefined when no token can have been revoked since the last check (the common case, no query);
   * otherwise a check, whose revoked holders are told before it resolves. Awaited before sending.
   */
  beforeSending(): Promise<void> | undefined {
    if (this.tokensVersion() === this.#checked && !this.#checking) return undefined;
    return this.check().then(() => (this.tokensVersion() === this.#checked ? undefined : this.check()));
  }

  async #check(): Promise<void> {
    this.#checked = this.tokensVersion();
    const held = new Set<string>();
    for (const h of this.#holders) for (const id of h.held()) held.add(id);
    if (!held.size) return;
    const revoked = new Set(await this.gate.revokedAmong([...held]));
    if (!revoked.size) return;
    for (const h of this.#holders) await h.revoked(revoked);
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
