// LOOPBACK_DATABASE_URL is read and checked now; until the relay's services run on the PostgreSQL store
// the relay refuses to start with it, rather than quietly writing a SQLite file of its own.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { assertStoreSupported, configFromEnv } from "../../relay/src/config.ts";
import { RelayProcess } from "../support/relay-process.ts";

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

test("the relay and its token command refuse a database URL until the services run on PostgreSQL, naming the missing phase", async () => {
  expect(() => assertStoreSupported({ databaseUrl: null })).not.toThrow();
  const relay = new RelayProcess({ env: { LOOPBACK_DATABASE_URL: "postgres://postgres@127.0.0.1:1/loopback" } });
  try {
    const started = await relay.start().then(
      () => "started",
      (e: Error) => e.message,
    );
    expect(started).toContain("LOOPBACK_DATABASE_URL is set, but this relay cannot run on PostgreSQL yet");
    expect(started).toContain("issue 10, phase 2");
    // Nothing was written to a SQLite file meanwhile.
    expect(existsSync(join(relay.dataDir, "loopback.sqlite"))).toBe(false);
    const token = relay.cli(["token", "create", "--person", "Ada"]);
    expect(token.exitCode).toBe(2);
    expect(token.stderr).toContain("issue 10, phase 2");
    expect(existsSync(join(relay.dataDir, "loopback.sqlite"))).toBe(false);
  } finally {
    await relay.dispose();
  }
});
