// The relay creates its tables only through the numbered migrations, so a schema changed without its
// migration would start on tables that lack the change. drizzle-kit, run on a copy of each store's
// migrations, must find nothing left to migrate.
import { afterAll, expect, test } from "bun:test";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { ROOT } from "../support/relay-process.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const STORAGE = join(ROOT, "relay/src/storage");

function generate(dialect: "sqlite" | "postgresql", schema: string, migrations: string) {
  const dir = mkdtempSync(join(tmpdir(), "loopback-migrations-"));
  dirs.push(dir);
  cpSync(join(STORAGE, migrations), join(dir, "migrations"), { recursive: true });
  const config = join(dir, "drizzle.config.mjs");
  // drizzle-kit reads both paths relative to where it runs.
  writeFileSync(config, `export default ${JSON.stringify({ dialect, schema: relative(dir, join(STORAGE, schema)), out: "./migrations" })};\n`);
  const run = Bun.spawnSync([join(ROOT, "node_modules/.bin/drizzle-kit"), "generate", "--config", config], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  return { exitCode: run.exitCode, out: run.stdout.toString() + run.stderr.toString() };
}

test.each([
  ["SQLite", "sqlite", "sqlite/schema.ts", "sqlite/migrations"],
  ["PostgreSQL", "postgresql", "postgres/schema.ts", "postgres/pg-migrations"],
] as const)("the %s migrations hold the whole schema: drizzle-kit finds nothing to migrate", (_name, dialect, schema, migrations) => {
  const { exitCode, out } = generate(dialect, schema, migrations);
  expect(exitCode).toBe(0);
  expect(out).toContain("No schema changes, nothing to migrate");
}, 60_000);
