// Both stores for one storage suite: the SQLite file and a PostgreSQL database, each fresh per test.
// One PostgreSQL server per test file (it takes seconds to start), a new database on it per store.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPgStore } from "../../relay/src/storage/postgres/store.ts";
import { openSqliteStore } from "../../relay/src/storage/sqlite/store.ts";
import type { Store } from "../../relay/src/storage/store.ts";
import { PostgresServer } from "./postgres.ts";

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
  #pg?: Promise<PostgresServer>;
  #open: Store[] = [];
  #dirs: string[] = [];
  #databases = 0;

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
      const url = (await this.server()).createDatabase(`store_${++this.#databases}`, await this.#template());
      const open = async () => this.#keep(await openPgStore(url));
      return { store: await open(), another: open, url };
    },
  };

  #migrated?: Promise<string>;

  /** A database the store has migrated, copied for each fresh one. */
  #template(): Promise<string> {
    this.#migrated ??= (async () => {
      const url = (await this.server()).createDatabase("migrated");
      await (await openPgStore(url)).close();
      return "migrated";
    })();
    return this.#migrated;
  }

  /** The file's PostgreSQL server, started on first use. */
  server(): Promise<PostgresServer> {
    this.#pg ??= new PostgresServer().start();
    return this.#pg;
  }

  #keep(store: Store): Store {
    this.#open.push(store);
    return store;
  }

  async dispose(): Promise<void> {
    await Promise.allSettled(this.#open.map((s) => s.close()));
    if (this.#pg) (await this.#pg).stop();
    for (const dir of this.#dirs) rmSync(dir, { recursive: true, force: true });
  }
}
