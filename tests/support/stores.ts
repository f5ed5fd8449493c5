// Both stores for one storage suite: the SQLite file and a PostgreSQL database, each fresh per test.
// The databases are the relays' own (tests/support/relay-process.ts `freshDatabase`): migrated copies,
// on the run's PostgreSQL server or the test process's own.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPgStore } from "../../relay/src/storage/postgres/store.ts";
import { openSqliteStore } from "../../relay/src/storage/sqlite/store.ts";
import type { Store } from "../../relay/src/storage/store.ts";
import { freshDatabase } from "./relay-process.ts";

export interface Fresh {
  /** A store on a new, empty database. */
  store: Store;
  /** Another writer on the same database: a second connection to the file, or another replica. */
  another(): Promise<Store>;
  /** The PostgreSQL URL of this database (for PostgreSQL only). */
  url?: string;
}

export interface StoreKind {
  name: "sqlite" | "postgres";
  fresh(): Promise<Fresh>;
}

export class Stores {
  #open: Store[] = [];
  #dirs: string[] = [];

  /** Each kind, as `[name, kind]` rows for `describe.each`. */
  get table(): [string, StoreKind][] {
    return [
      ["SQLite", this.sqlite],
      ["PostgreSQL", this.postgres],
    ];
  }

  readonly sqlite: StoreKind = {
    name: "sqlite",
    fresh: async () => {
      const dir = mkdtempSync(join(tmpdir(), "loopback-store-"));
      this.#dirs.push(dir);
      const open = async () => this.#keep(openSqliteStore(dir));
      return { store: await open(), another: open };
    },
  };

  readonly postgres: StoreKind = {
    name: "postgres",
    fresh: async () => {
      const url = await freshDatabase();
      const open = async () => this.#keep(await openPgStore(url));
      return { store: await open(), another: open, url };
    },
  };

  #keep(store: Store): Store {
    this.#open.push(store);
    return store;
  }

  async dispose(): Promise<void> {
    await Promise.allSettled(this.#open.map((s) => s.close()));
    for (const dir of this.#dirs) rmSync(dir, { recursive: true, force: true });
  }
}
