// `loopback prune`: runs retention now, as every relay does by itself once a day.
import type { Config } from "../config.ts";
import { openStore } from "../storage/open-store.ts";
import { prune as pruneStore } from "../upkeep/retention.ts";

export async function prune(config: Config): Promise<void> {
  const store = await openStore(config);
  try {
    const pruned = await pruneStore(store, config.retentionDays);
    const kept = config.retentionDays > 0 ? `closed more than ${config.retentionDays} days ago` : "none: LOOPBACK_RETENTION_DAYS=0 keeps them for ever";
    console.log(`Pruned ${pruned.asks.length} asks (${kept}), ${pruned.images} images no remaining ask shows, ${pruned.notices} push notices.`);
  } finally {
    await store.close();
  }
}
