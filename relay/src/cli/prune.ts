// `loopback prune`: runs retention now, as every relay does by itself once a day.
import type { Config } from "../config.ts";
import { prune as pruneStore } from "../upkeep/retention.ts";
import { withStore } from "./with-store.ts";

export function prune(config: Config): Promise<void> {
  return withStore(config, async (store) => {
    const pruned = await pruneStore(store, config.retentionDays);
    const kept = config.retentionDays > 0 ? `closed more than ${config.retentionDays} days ago` : "none: LOOPBACK_RETENTION_DAYS=0 keeps them for ever";
    console.log(`Pruned ${pruned.asks.length} asks (${kept}), ${pruned.images} images no remaining ask shows, ${pruned.notices} push notices.`);
  });
}
