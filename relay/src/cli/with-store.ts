// What a command that reads or writes records does around its work: opens the store the configuration
// names, and closes it however the work ends.
import type { Config } from "../config.ts";
import { openStore } from "../storage/open-store.ts";
import type { Store } from "../storage/store.ts";

export async function withStore(config: Config, run: (store: Store) => Promise<void>): Promise<void> {
  const store = await openStore(config);
  try {
    await run(store);
  } finally {
    await store.close();
  }
}
