// The relay's VAPID key pair (RFC 8292): made on first start and kept in the store, so every relay on
// one database signs with the same key and a browser's subscription outlives any one process.
import { eq } from "drizzle-orm";
import webpush from "web-push";
import type { Clock } from "../clock.ts";
import type { Db } from "../storage/db.ts";
import { pushKeys } from "../storage/schema.ts";

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

const ROW = "vapid";

export function vapidKeys(db: Db, clock: Clock): VapidKeys {
  const made = webpush.generateVAPIDKeys();
  // Two relays starting at once both try; the first insert wins and both read the same row.
  db.insert(pushKeys).values({ id: ROW, ...made, createdAt: clock.now() }).onConflictDoNothing().run();
  const row = db.select().from(pushKeys).where(eq(pushKeys.id, ROW)).get()!;
  return { publicKey: row.publicKey, privateKey: row.privateKey };
}
