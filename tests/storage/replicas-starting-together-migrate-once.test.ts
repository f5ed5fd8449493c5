// Replicas of a rolling deploy start at the same moment on one database: the migrations are applied
// once, under a lock, and every replica comes up on the same schema.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { openPgStore } from "../../relay/src/storage/postgres/store.ts";
import { emptyDatabase, ROOT, testPostgres } from "../support/relay-process.ts";

const journal = JSON.parse(readFileSync(join(ROOT, "relay/src/storage/postgres/pg-migrations/meta/_journal.json"), "utf8")) as { entries: unknown[] };

test("three replicas starting together on an empty database apply each migration once and all serve it", async () => {
  const url = await emptyDatabase();
  const replicas = await Promise.all([openPgStore(url), openPgStore(url), openPgStore(url)]);
  const admin = postgres(url, { max: 1 });
  try {
    const applied = await admin`select hash from drizzle.__drizzle_migrations`;
    expect(applied.length).toBe(journal.entries.length);
    const { caller } = await replicas[0].tokens.create({ space: "default", person: "Ada", kind: "person", tokenId: "tok_1", hash: "h1", at: new Date().toISOString() });
    for (const r of replicas) expect(await r.tokens.callerByHash("h1")).toEqual(caller);
    // A replica started later finds nothing to apply.
    const late = await openPgStore(url);
    expect((await admin`select hash from drizzle.__drizzle_migrations`).length).toBe(journal.entries.length);
    await late.close();
  } finally {
    await admin.end();
    await Promise.all(replicas.map((r) => r.close()));
  }
});

test("a database that cannot be reached is refused with the driver's reason, and nothing is left open", async () => {
  const port = new URL(await testPostgres()).port;
  await expect(openPgStore(`postgres://postgres@127.0.0.1:${port}/no_such_database`)).rejects.toThrow(/no_such_database/);
});
