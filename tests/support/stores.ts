// Both stores for one storage suite: the SQLite file and a PostgreSQL database, each fresh per test.
// The databases are the relays' own (tests/support/relay-process.ts `freshDatabase`): migrated copies,
// on the run's PostgreSQL server or the test process's own.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPgStore } from "../../relay/src/storage/postgres/store.ts";
import { openSqliteStore } from "../../relay/src/storage/sqlite/store.ts";
import type { SharedStore, Store } from "../../relay/src/storage/store.ts";
import { freshDatabase } from "./relay-process.ts";

export interface Fresh<S extends Store = Store> {
  /** A store on a new, empty database. */
  store: S;
  /** Another writer on the same database: a second connection to the file, or another replica. */
  another(): Promise<S>;
  /** The PostgreSQL URL of this database (for PostgreSQL only). */
  url?: string;
}

export interface StoreKind<S extends Store = Store> {
  name: "sqlite" | "postgres";
  fresh(): Promise<Fresh<S>>;
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

  /** Replicas' stores: another replica's changes can be listened to. */
  readonly postgres: StoreKind<SharedStore> = {
    name: "postgres",
    fresh: async () => {
      const url = await freshDatabase();
      const open = async () => this.#keep(await openPgStore(url));
      return { store: await open(), another: open, url };
    },
  };

  #keep<S extends Store>(store: S): S {
    this.#open.push(store);
    return store;
  }

  async dispose(): Promise<void> {
    await Promise.allSettled(this.#open.map((s) => s.close()));
    for (const dir of this.#dirs) rmSync(dir, { recursive: true, force: true });
  }
}
