// Token lookups kept in memory in front of the SQLite file. Every request looks its token up, and
// after a pause that three-table read is ~0.25 ms of a reply's way to the agent. Nothing
// held outlives a change: a revocation through here forgets the token at once, and a commit by any
// other connection to the file (the CLI's `token revoke`) moves SQLite's `data_version`, read before
// every lookup, which forgets everything held. So a token revoked anywhere is refused from its commit
// on. Never in front of PostgreSQL, whose other replicas revoke without telling this one.
import type { Caller } from "../caller.ts";
import type { TokenRecords } from "../store.ts";

/** Tokens held at most; a relay serves a handful. */
const HELD = 10_000;

export class CachedTokens implements TokenRecords {
  #held = new Map<string, Caller>();
  #version: number;
  /** Moves whenever what is held is forgotten: a read that began before must not put back what it read. */
  #generation = 0;

  /** `dataVersion` is SQLite's `PRAGMA data_version` on the relay's connection. */
  constructor(
    private inner: TokenRecords,
    private dataVersion: () => number,
  ) {
    this.#version = dataVersion();
  }

  #forget(): void {
    this.#held.clear();
    this.#generation++;
  }

  async callerByHash(hash: string): Promise<Caller | undefined> {
    const version = this.dataVersion();
    if (version !== this.#version) {
      this.#version = version;
      this.#forget();
    }
    const held = this.#held.get(hash);
    if (held) return held;
    const generation = this.#generation;
    const caller = await this.inner.callerByHash(hash);
    if (caller && generation === this.#generation && this.dataVersion() === this.#version) {
      if (this.#held.size >= HELD) this.#forget();
      this.#held.set(hash, caller);
    }
    return caller;
  }

  create(input: Parameters<TokenRecords["create"]>[0]) {
    return this.inner.create(input);
  }

  list() {
    return this.inner.list();
  }

  async revoke(tokenId: string, at: string): Promise<boolean> {
    this.#forget();
    try {
      return await this.inner.revoke(tokenId, at);
    } finally {
      this.#forget();
    }
  }

  revokedAmong(tokenIds: string[]) {
    return this.inner.revokedAmong(tokenIds);
  }

  isEmpty() {
    return this.inner.isEmpty();
  }
}
