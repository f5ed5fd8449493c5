// Tokens, the people they act for and their spaces. The lookup reads the database on every request
// (SQLite's store holds lookups in front of it: cached-tokens.ts),
// so a token revoked on one replica is refused by every replica from its commit on.
import { and, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import type { Caller } from "../../auth/caller.ts";
import { newId } from "../../ids.ts";
import { prepared, type Dialect } from "../dialect.ts";
import type { TokenListing, TokenRecords } from "../store.ts";

/** Ids a query names at once: well under SQLite's cap on bound parameters. */
const IDS_PER_QUERY = 500;

export class SqlTokenRecords implements TokenRecords {
  #byHash;

  constructor(private d: Dialect) {
    const { db, t } = d;
    this.#byHash = prepared<{ id: string; kind: Caller["tokenKind"]; personId: string; personName: string; spaceId: string; spaceName: string }>(
      db
        .select({ id: t.tokens.id, kind: t.tokens.kind, personId: t.people.id, personName: t.people.name, spaceId: t.spaces.id, spaceName: t.spaces.name })
        .from(t.tokens)
        .innerJoin(t.people, eq(t.tokens.personId, t.people.id))
        .innerJoin(t.spaces, eq(t.people.spaceId, t.spaces.id))
        .where(and(eq(t.tokens.hash, sql.placeholder("hash")), isNull(t.tokens.revokedAt))),
      "token_by_hash",
    );
  }

  async callerByHash(hash: string): Promise<Caller | undefined> {
    const [row] = await this.#byHash({ hash });
    if (!row) return undefined;
    return { spaceId: row.spaceId, spaceName: row.spaceName, person: { id: row.personId, name: row.personName }, tokenKind: row.kind, tokenHash: hash, tokenId: row.id };
  }

  create(input: { space: string; person: string; kind: Caller["tokenKind"]; tokenId: string; hash: string; at: string }) {
    const { t } = this.d;
    return this.d.transaction(async (tx) => {
      // Two replicas minting for a new space at once: one inserts it, the other finds it.
      const newSpace = await tx
        .insert(t.spaces)
        .values({ id: newId("spc"), name: input.space, createdAt: input.at })
        .onConflictDoNothing({ target: t.spaces.name })
        .returning({ id: t.spaces.id });
      const [space] = await tx.select().from(t.spaces).where(eq(t.spaces.name, input.space));
      const newPerson = await tx
        .insert(t.people)
        .values({ id: newId("psn"), spaceId: space.id, name: input.person, createdAt: input.at })
        .onConflictDoNothing({ target: [t.people.spaceId, t.people.name] })
        .returning({ id: t.people.id });
      const [person] = await tx.select().from(t.people).where(and(eq(t.people.spaceId, space.id), eq(t.people.name, input.person)));
      await tx.insert(t.tokens).values({ id: input.tokenId, hash: input.hash, personId: person.id, kind: input.kind, createdAt: input.at });
      const caller: Caller = { spaceId: space.id, spaceName: space.name, person: { id: person.id, name: person.name }, tokenKind: input.kind, tokenHash: input.hash, tokenId: input.tokenId };
      return { caller, created: { space: newSpace.length === 1, person: newPerson.length === 1 } };
    });
  }

  async list(): Promise<TokenListing[]> {
    const { db, t } = this.d;
    return db
      .select({ id: t.tokens.id, kind: t.tokens.kind, person: t.people.name, space: t.spaces.name, createdAt: t.tokens.createdAt, revokedAt: t.tokens.revokedAt })
      .from(t.tokens)
      .innerJoin(t.people, eq(t.tokens.personId, t.people.id))
      .innerJoin(t.spaces, eq(t.people.spaceId, t.spaces.id))
      .orderBy(t.tokens.createdAt);
  }

  revoke(tokenId: string, at: string): Promise<boolean> {
    const { t } = this.d;
    return this.d.transaction(async (q) => {
      const revoked = await q
        .update(t.tokens)
        .set({ revokedAt: at })
        .where(and(eq(t.tokens.id, tokenId), isNull(t.tokens.revokedAt)))
        .returning({ id: t.tokens.id });
      // The devices it registered go with it, in the same commit: a revoked phone is pushed nothing more.
      if (revoked.length) {
        await q.delete(t.pushDevices).where(eq(t.pushDevices.tokenId, tokenId));
        await this.d.announceRevocation(q, tokenId);
      }
      return revoked.length > 0;
    });
  }

  async revokedAmong(tokenIds: string[]): Promise<string[]> {
    const { db, t } = this.d;
    const revoked: string[] = [];
    for (let i = 0; i < tokenIds.length; i += IDS_PER_QUERY) {
      const rows = await db
        .select({ id: t.tokens.id })
        .from(t.tokens)
        .where(and(inArray(t.tokens.id, tokenIds.slice(i, i + IDS_PER_QUERY)), isNotNull(t.tokens.revokedAt)));
      revoked.push(...rows.map((r) => r.id));
    }
    return revoked;
  }

  async isEmpty(): Promise<boolean> {
    const { db, t } = this.d;
    return (await db.select({ id: t.tokens.id }).from(t.tokens).limit(1)).length === 0;
  }
}
