// Who is calling: a bearer token resolved to its person and space. Tokens are looked up by their
// SHA-256 hash and the hash is compared in constant time, so neither the store nor the timing of a
// refusal tells anything about a real token.
import { and, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import { timingSafeEqual } from "node:crypto";
import type { Actor } from "@loopback/shared/generated/types";
import { problem } from "@loopback/shared/problems";
import type { Clock } from "../clock.ts";
import { hashSecret, newId, newSecret } from "../ids.ts";
import { changed, type Db } from "../storage/db.ts";
import { people, spaces, tokens } from "../storage/schema.ts";

export type TokenKind = "person" | "agent";

/** A caller the gate let in. Asks it raises are `raisedBy` its person, whichever kind of token it holds. */
export interface Caller {
  spaceId: string;
  spaceName: string;
  person: Actor;
  tokenKind: TokenKind;
  /** The SHA-256 of the token it came with: sessions and limits are bound to it. */
  tokenHash: string;
  /** The token it presented, as `token list` names it: per-token caps and revocation key on it. */
  tokenId: string;
}

export const DEFAULT_SPACE = "default";

export class Gate {
  #byHash;

  constructor(
    private db: Db,
    private clock: Clock,
  ) {
    // Every request passes here: prepared once.
    this.#byHash = db
      .select({ id: tokens.id, hash: tokens.hash, kind: tokens.kind, personId: people.id, personName: people.name, spaceId: spaces.id, spaceName: spaces.name })
      .from(tokens)
      .innerJoin(people, eq(tokens.personId, people.id))
      .innerJoin(spaces, eq(people.spaceId, spaces.id))
      .where(and(eq(tokens.hash, sql.placeholder("hash")), isNull(tokens.revokedAt)))
      .prepare();
  }

  authenticate(authorization: string | null | undefined): Caller {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    if (!m) throw problem("auth.missing");
    return this.byToken(m[1]);
  }

  byToken(token: string): Caller {
    const hash = hashSecret(token);
    const row = this.#byHash.get({ hash });
    if (!row || !timingSafeEqual(Buffer.from(row.hash), Buffer.from(hash))) throw problem("auth.invalid");
    return {
      spaceId: row.spaceId,
      spaceName: row.spaceName,
      person: { id: row.personId, name: row.personName },
      tokenKind: row.kind,
      tokenHash: hash,
      tokenId: row.id,
    };
  }

  /** Mints a token for a person (created with their space when missing). Returns the token, once. */
  createToken(opts: { person: string; space?: string; agent?: boolean }): { token: string; tokenId: string; caller: Caller; created: { space: boolean; person: boolean } } {
    return this.db.transaction((tx) => {
      const at = this.clock.now();
      const spaceName = opts.space ?? DEFAULT_SPACE;
      let space = tx.select().from(spaces).where(eq(spaces.name, spaceName)).get();
      const created = { space: !space, person: false };
      if (!space) {
        space = { id: newId("spc"), name: spaceName, createdAt: at };
        tx.insert(spaces).values(space).run();
      }
      let person = tx.select().from(people).where(and(eq(people.spaceId, space.id), eq(people.name, opts.person))).get();
      if (!person) {
        created.person = true;
        person = { id: newId("psn"), spaceId: space.id, name: opts.person, createdAt: at };
        tx.insert(people).values(person).run();
      }
      const kind: TokenKind = opts.agent ? "agent" : "person";
      const token = newSecret(kind === "agent" ? "lba" : "lbp");
      const tokenId = newId("tok");
      tx.insert(tokens).values({ id: tokenId, hash: hashSecret(token), personId: person.id, kind, createdAt: at }).run();
      return {
        token,
        tokenId,
        created,
        caller: { spaceId: space.id, spaceName: space.name, person: { id: person.id, name: person.name }, tokenKind: kind, tokenHash: hashSecret(token), tokenId },
      };
    });
  }

  listTokens() {
    return this.db
      .select({ id: tokens.id, kind: tokens.kind, person: people.name, space: spaces.name, createdAt: tokens.createdAt, revokedAt: tokens.revokedAt })
      .from(tokens)
      .innerJoin(people, eq(tokens.personId, people.id))
      .innerJoin(spaces, eq(people.spaceId, spaces.id))
      .orderBy(tokens.createdAt)
      .all();
  }

  /** Revokes a token by its id (as `token list` shows it). Returns whether one was revoked. */
  revoke(tokenId: string): boolean {
    const res = this.db
      .update(tokens)
      .set({ revokedAt: this.clock.now() })
      .where(and(eq(tokens.id, tokenId), isNull(tokens.revokedAt)))
      .run();
    return changed(res) > 0;
  }

  /** Which of these token ids are revoked. Asked of the shared store, so it sees revocations by any process. */
  revokedAmong(tokenIds: string[]): string[] {
    const revoked: string[] = [];
    // Well under SQLite's limit on bound parameters.
    for (let i = 0; i < tokenIds.length; i += 500) {
      const chunk = tokenIds.slice(i, i + 500);
      const rows = this.db.select({ id: tokens.id }).from(tokens).where(and(inArray(tokens.id, chunk), isNotNull(tokens.revokedAt))).all();
      revoked.push(...rows.map((r) => r.id));
    }
    return revoked;
  }

  isEmpty(): boolean {
    return !this.db.select({ id: tokens.id }).from(tokens).limit(1).get();
  }
}
