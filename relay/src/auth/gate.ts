// Who is calling: a bearer token resolved to its person and space. Tokens are kept and looked up only
// by their SHA-256 hash, so neither the store nor the timing of a lookup tells anything about a real
// token (an index compares hashes, whose prefixes say nothing of the secret). The store is asked on every request (over SQLite, a
// lookup held in memory is checked against the file's data_version), so a token revoked by any
// process (the CLI, another replica) is refused from its commit on.
import type { Caller, TokenKind } from "../storage/caller.ts";
import { problem } from "@loopback/shared/problems";
import type { Clock } from "../clock.ts";
import { hashSecret, newId, newSecret } from "../ids.ts";
import type { Store, TokenListing } from "../storage/store.ts";

export type { Caller, TokenKind } from "../storage/caller.ts";

export const DEFAULT_SPACE = "default";

export class Gate {
  constructor(
    private store: Store,
    private clock: Clock,
  ) {}

  authenticate(authorization: string | null | undefined): Promise<Caller> {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    if (!m) return Promise.reject(problem("auth.missing"));
    return this.byToken(m[1]);
  }

  async byToken(token: string): Promise<Caller> {
    const hash = hashSecret(token);
    const caller = await this.store.tokens.callerByHash(hash);
    if (!caller) throw problem("auth.invalid");
    return caller;
  }

  /** Mints a token for a person (created with their space when missing). Returns the token, once. */
  async createToken(opts: { person: string; space?: string; agent?: boolean }): Promise<{ token: string; tokenId: string; caller: Caller; created: { space: boolean; person: boolean } }> {
    const kind: TokenKind = opts.agent ? "agent" : "person";
    const token = newSecret(kind === "agent" ? "lba" : "lbp");
    const tokenId = newId("tok");
    const { caller, created } = await this.store.tokens.create({
      space: opts.space ?? DEFAULT_SPACE,
      person: opts.person,
      kind,
      tokenId,
      hash: hashSecret(token),
      at: this.clock.now(),
    });
    return { token, tokenId, caller, created };
  }

  listTokens(): Promise<TokenListing[]> {
    return this.store.tokens.list();
  }

  /** Revokes a token by its id (as `token list` shows it). Returns whether one was revoked. */
  revoke(tokenId: string): Promise<boolean> {
    return this.store.tokens.revoke(tokenId, this.clock.now());
  }

  /** Which of these token ids are revoked. Asked of the shared store, so it sees revocations by any process. */
  revokedAmong(tokenIds: string[]): Promise<string[]> {
    return this.store.tokens.revokedAmong(tokenIds);
  }

  isEmpty(): Promise<boolean> {
    return this.store.tokens.isEmpty();
  }
}
