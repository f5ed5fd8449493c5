// The SQLite and PostgreSQL schemas are declared twice (drizzle has one table builder per dialect) and
// queried once: this holds them to the same tables, columns, keys and indexes, so they cannot drift.
import { expect, test } from "bun:test";
import { is, Table } from "drizzle-orm";
import { getTableConfig as pgTable } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteTable } from "drizzle-orm/sqlite-core";
import * as pg from "../../relay/src/storage/postgres/schema.ts";
import * as sqlite from "../../relay/src/storage/sqlite/schema.ts";

/** The SQL types each dialect gives one kind of value. */
const SAME_TYPE: Record<string, string> = { text: "text", integer: "integer", blob: "bytes", bytea: "bytes" };

type Config = ReturnType<typeof sqliteTable> | ReturnType<typeof pgTable>;

function shape(config: Config) {
  return {
    name: config.name,
    columns: config.columns.map((c) => ({
      name: c.name,
      type: SAME_TYPE[c.getSQLType()] ?? `unmapped ${c.getSQLType()}`,
      notNull: c.notNull,
      primary: c.primary,
      unique: c.isUnique,
      default: c.default ?? null,
      enum: c.enumValues ?? null,
    })),
    indexes: config.indexes
      .map((i) => ({ name: i.config.name ?? "", unique: Boolean(i.config.unique), on: i.config.columns.map((c: any) => c.name) }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    foreignKeys: config.foreignKeys
      .map((f) => {
        const r = f.reference();
        return { columns: r.columns.map((c) => c.name), to: (r.foreignTable as any)[Symbol.for("drizzle:Name")], toColumns: r.foreignColumns.map((c) => c.name) };
      })
      .sort((a, b) => a.columns.join().localeCompare(b.columns.join())),
  };
}

const tablesOf = (module: Record<string, unknown>) => Object.entries(module).filter(([, v]) => is(v, Table)).sort(([a], [b]) => a.localeCompare(b));

test("both schemas declare the same tables under the same names", () => {
  expect(tablesOf(pg).map(([name]) => name)).toEqual(tablesOf(sqlite).map(([name]) => name));
  expect(tablesOf(sqlite).length).toBeGreaterThan(10);
});

test("every table has the same columns, types, keys and indexes in both schemas", () => {
  const pgTables = new Map(tablesOf(pg));
  for (const [name, table] of tablesOf(sqlite)) {
    const theirs = pgTables.get(name);
    expect(theirs, `postgres/schema.ts has no ${name}`).toBeDefined();
    expect(shape(pgTable(theirs as any))).toEqual(shape(sqliteTable(table as any)));
  }
});
