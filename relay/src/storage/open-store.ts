// The store a configuration names: PostgreSQL when `LOOPBACK_DATABASE_URL` is set (any number of
// replicas on one database), else the SQLite file in `LOOPBACK_DATA` (one relay).
import type { Config } from "../config.ts";
import { openPgStore } from "./postgres/store.ts";
import { openSqliteStore } from "./sqlite/store.ts";
import type { Store } from "./store.ts";

export async function openStore(config: Pick<Config, "databaseUrl" | "dataDir">): Promise<Store> {
  return config.databaseUrl ? openPgStore(config.databaseUrl) : openSqliteStore(config.dataDir);
}
