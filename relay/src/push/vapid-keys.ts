// The relay's VAPID key pair (RFC 8292): made on first start and kept in the store, so every relay on
// one database signs with the same key and a browser's subscription outlives any one process. web-push
// (~0.1 s to load) is loaded to make them on a first start only; a relay with keys loads it at its first push.
import type { Clock } from "../clock.ts";
import type { PushRecords } from "../storage/store.ts";

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

export function vapidKeys(records: PushRecords, clock: Clock): Promise<VapidKeys> {
  // Two relays starting at once both offer theirs; the first stored wins and both get the same pair.
  return records.keys(async () => (await import("web-push")).default.generateVAPIDKeys(), clock.now());
}
