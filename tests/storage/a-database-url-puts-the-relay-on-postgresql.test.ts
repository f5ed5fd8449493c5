// LOOPBACK_DATABASE_URL puts the relay, and its token command, on PostgreSQL instead of the SQLite
// file: nothing is written to the data directory, and a URL the relay cannot reach stops it at once
// with what is wrong.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { configFromEnv } from "../../relay/src/config.ts";
import { emptyDatabase, RelayProcess } from "../support/relay-process.ts";

test("a postgres:// or postgresql:// URL is read; none, or an empty one, means the SQLite file", () => {
  expect(configFromEnv({}).databaseUrl).toBeNull();
  expect(configFromEnv({ LOOPBACK_DATABASE_URL: " " }).databaseUrl).toBeNull();
  expect(configFromEnv({ LOOPBACK_DATABASE_URL: "postgres://loopback:secret@db.internal:5432/loopback" }).databaseUrl).toBe("postgres://loopback:secret@db.internal:5432/loopback");
  expect(configFromEnv({ LOOPBACK_DATABASE_URL: "postgresql://db/loopback?sslmode=require" }).databaseUrl).toBe("postgresql://db/loopback?sslmode=require");
});

test("a URL of another database, not a URL at all, or one without a database is refused with what is wrong", () => {
  expect(() => configFromEnv({ LOOPBACK_DATABASE_URL: "mysql://db/loopback" })).toThrow('LOOPBACK_DATABASE_URL must start with postgres:// or postgresql://, not "mysql://"');
  expect(() => configFromEnv({ LOOPBACK_DATABASE_URL: "db.internal:5432" })).toThrow("LOOPBACK_DATABASE_URL must");
  expect(() => configFromEnv({ LOOPBACK_DATABASE_URL: "not a url" })).toThrow("LOOPBACK_DATABASE_URL must be a URL like postgres://");
  expect(() => configFromEnv({ LOOPBACK_DATABASE_URL: "postgres://db.internal:5432/" })).toThrow("must name a host and a database");
});

test("with a database URL the relay and its token command keep everything in PostgreSQL and nothing in the data directory", async () => {
  const url = await emptyDatabase();
  const relay = new RelayProcess({ env: { LOOPBACK_DATABASE_URL: url } });
  try {
    await relay.start();
    expect(relay.log).toContain("PostgreSQL at postgres://postgres@127.0.0.1");
    // The first start minted the first person's tokens in PostgreSQL; the CLI sees them there.
    const token = await relay.token("Ada");
    const whoami = await fetch(`${relay.url}/api/v1/whoami`, { headers: { Authorization: `Bearer ${token}` } });
    expect(await whoami.json()).toEqual({ space: "default", actor: { id: expect.stringMatching(/^psn_/), name: "Ada" } });
    const listed = relay.cli(["token", "list"]);
    expect(listed.exitCode).toBe(0);
    expect(listed.stdout).toContain("default/first");
    expect(listed.stdout).toContain("default/Ada");
    expect(existsSync(join(relay.dataDir, "loopback.sqlite"))).toBe(false);
  } finally {
    await relay.dispose();
  }
});

test("a database URL nobody answers stops the relay and its token command with the reason", async () => {
  const relay = new RelayProcess({ env: { LOOPBACK_DATABASE_URL: "postgres://postgres@127.0.0.1:1/loopback" } });
  try {
    const started = await relay.start().then(
      () => "started",
      (e: Error) => e.message,
    );
    expect(started).toContain("relay exited (2)");
    expect(started).toContain("ECONNREFUSED");
    expect(existsSync(join(relay.dataDir, "loopback.sqlite"))).toBe(false);
    const token = relay.cli(["token", "create", "--person", "Ada"]);
    expect(token.exitCode).toBe(2);
    expect(token.stderr).toContain("ECONNREFUSED");
  } finally {
    await relay.dispose();
  }
});
