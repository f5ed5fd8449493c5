// The store a configuration names: PostgreSQL when `LOOPBACK_DATABASE_URL` is set (any number of
// replicas on one database), else the SQLite file in `LOOPBACK_DATA` (one relay). Only the named
// driver is loaded: the other's ORM layer and client cost every start and CLI command for nothing.
import type { Config } from "../config.ts";
import type { Store } from "./store.ts";

export async function openStore(config: Pick<Config, "databaseUrl" | "dataDir">): Promise<Store> {
  if (config.databaseUrl) return (await import("./postgres/store.ts")).openPgStore(config.databaseUrl);
  return (await import("./sqlite/store.ts")).openSqliteStore(config.dataDir);
}
