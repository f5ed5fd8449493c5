// Web Push: the relay's key pair, the people's devices, and which turns were pushed. In the store, so
// every replica signs with one key, pushes to every device of a space, and pushes each turn once.
import { and, asc, count, eq, isNull, or, sql } from "drizzle-orm";
import { prepared, type Dialect } from "../dialect.ts";
import type { DeviceListing, DeviceRow, PushRecords } from "../store.ts";

/** The one row of `push_keys`. */
const KEYS = "vapid";

export class SqlPushRecords implements PushRecords {
  #devicesInSpace;

  constructor(private d: Dialect) {
    const { db, t } = d;
    // Every new ask and every agent's answer looks its space's devices up: prepared once (building it
    // each time cost ~0.4 ms after a pause, more than the look itself on a space with no device).
    // A device whose token was revoked is never pushed to, even before its row is gone.
    this.#devicesInSpace = prepared<{ device: DeviceRow }>(
      db
        .select({ device: t.pushDevices })
        .from(t.pushDevices)
        .leftJoin(t.tokens, eq(t.pushDevices.tokenId, t.tokens.id))
        .where(and(eq(t.pushDevices.spaceId, sql.placeholder("spaceId")), or(isNull(t.pushDevices.tokenId), isNull(t.tokens.revokedAt)))),
      "devices_in_space",
    );
  }

  async keys(make: () => Promise<{ publicKey: string; privateKey: string }>, at: string) {
    const stored = await this.#storedKeys();
    if (stored) return stored;
    const made = await make();
    const { t } = this.d;
    // Two replicas starting at once both try; the first insert wins and both read the same row.
    await this.d.write((q) => q.insert(t.pushKeys).values({ id: KEYS, ...made, createdAt: at }).onConflictDoNothing());
    return (await this.#storedKeys())!;
  }

  async #storedKeys(): Promise<{ publicKey: string; privateKey: string } | undefined> {
    const { db, t } = this.d;
    const [row] = await db.select().from(t.pushKeys).where(eq(t.pushKeys.id, KEYS));
    return row && { publicKey: row.publicKey, privateKey: row.privateKey };
  }

  devicesOf(personId: string): Promise<DeviceRow[]> {
    const { db, t } = this.d;
    return db.select().from(t.pushDevices).where(eq(t.pushDevices.personId, personId)).orderBy(asc(t.pushDevices.createdAt));
  }

  saveDevice(row: Omit<DeviceRow, "lastPushAt">, renewLoudness: boolean, maxPerPerson: number): Promise<DeviceRow | "too_many"> {
    const { t } = this.d;
    const { id, endpoint, createdAt, loudness, ...fields } = row;
    return this.d.write(async (q) => {
      const known = await q.select({ id: t.pushDevices.id }).from(t.pushDevices).where(and(eq(t.pushDevices.personId, row.personId), eq(t.pushDevices.endpoint, endpoint)));
      if (!known.length) {
        const [held] = await q.select({ n: count() }).from(t.pushDevices).where(eq(t.pushDevices.personId, row.personId));
        if (held!.n >= maxPerPerson) return "too_many";
      }
      const [saved] = await q
        .insert(t.pushDevices)
        .values(row)
        .onConflictDoUpdate({ target: [t.pushDevices.personId, t.pushDevices.endpoint], set: { ...fields, ...(renewLoudness ? { loudness } : {}) } })
        .returning();
      return saved!;
    });
  }

  setLoudness(personId: string, id: string, loudness: string): Promise<DeviceRow | undefined> {
    const { t } = this.d;
    return this.d.write(async (q) => (await q.update(t.pushDevices).set({ loudness }).where(and(eq(t.pushDevices.id, id), eq(t.pushDevices.personId, personId))).returning())[0]);
  }

  removeDevice(personId: string, id: string): Promise<boolean> {
    const { t } = this.d;
    return this.d.write(async (q) => (await q.delete(t.pushDevices).where(and(eq(t.pushDevices.id, id), eq(t.pushDevices.personId, personId))).returning({ id: t.pushDevices.id })).length === 1);
  }

  async devicesInSpace(spaceId: string): Promise<DeviceRow[]> {
    return (await this.#devicesInSpace({ spaceId })).map((r) => r.device);
  }

  forgetDevice(id: string): Promise<boolean> {
    const { t } = this.d;
    return this.d.write(async (q) => (await q.delete(t.pushDevices).where(eq(t.pushDevices.id, id)).returning({ id: t.pushDevices.id })).length === 1);
  }

  listDevices(): Promise<DeviceListing[]> {
    const { db, t } = this.d;
    const d = t.pushDevices;
    return db
      .select({ id: d.id, space: t.spaces.name, person: t.people.name, name: d.name, endpoint: d.endpoint, tokenId: d.tokenId, createdAt: d.createdAt, lastPushAt: d.lastPushAt })
      .from(d)
      .innerJoin(t.people, eq(d.personId, t.people.id))
      .innerJoin(t.spaces, eq(d.spaceId, t.spaces.id))
      .orderBy(asc(d.createdAt));
  }

  async pushed(id: string, at: string): Promise<void> {
    const { t } = this.d;
    await this.d.withoutWaitingForDisk((q) => q.update(t.pushDevices).set({ lastPushAt: at }).where(eq(t.pushDevices.id, id)));
  }

  claimNotice(askId: string, turn: number, at: string): Promise<boolean> {
    const { t } = this.d;
    return this.d.write(async (q) => (await q.insert(t.pushNotices).values({ askId, turn, at }).onConflictDoNothing().returning({ askId: t.pushNotices.askId })).length === 1);
  }
}
