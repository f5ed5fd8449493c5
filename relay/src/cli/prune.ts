// `loopback prune`: runs retention now, as every relay does by itself once a day.
import { configFromEnv } from "../config.ts";
import { openStore } from "../storage/open-store.ts";
import { prune as pruneStore } from "../upkeep/retention.ts";

export async function prune(args: string[]): Promise<void> {
  if (args.length) throw new Error("prune takes no arguments: it keeps what LOOPBACK_RETENTION_DAYS says");
  const config = configFromEnv();
  const store = await openStore(config);
  try {
    const pruned = await pruneStore(store, config.retentionDays);
    const kept = config.retentionDays > 0 ? `closed more than ${config.retentionDays} days ago` : "none: LOOPBACK_RETENTION_DAYS=0 keeps them for ever";
    console.log(`Pruned ${pruned.asks.length} asks (${kept}), ${pruned.images} images no remaining ask shows, ${pruned.notices} push notices.`);
  } finally {
    await store.close();
  }
}
