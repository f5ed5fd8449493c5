// The person's devices the relay pushes to: their subscriptions, as the browser made them, and how
// loud each wants to be. Everything is in the store, so every relay on it pushes to the same devices.
import * as schemas from "@loopback/shared/generated/schemas";
import type { Loudness, PushDevice } from "@loopback/shared/generated/types";
import { problem } from "@loopback/shared/problems";
import { parseShape } from "../parse-shape.ts";
import type { Caller } from "../auth/gate.ts";
import type { Clock } from "../clock.ts";
import { newId } from "../ids.ts";
import type { DeviceRow, PushRecords } from "../storage/store.ts";
import { knownTimeZone } from "./loudness.ts";
import type { PushDestinations } from "./push-destinations.ts";

export type { DeviceRow };

function bytesOf(base64url: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(base64url)) return null;
  return new Uint8Array(Buffer.from(base64url, "base64url"));
}

function checkLoudness(loudness: Loudness): Loudness {
  if (loudness.quietHours && !knownTimeZone(loudness.quietHours.timeZone)) throw problem("push.time_zone_unknown");
  return loudness;
}

/** Whether the bytes are a point on P-256: any other key would make every push to the device fail. */
async function isP256Point(raw: Uint8Array): Promise<boolean> {
  try {
    await crypto.subtle.importKey("raw", raw as Uint8Array<ArrayBuffer>, { name: "ECDH", namedCurve: "P-256" }, false, []);
    return true;
  } catch {
    return false;
  }
}

// An agent's token must not point the relay at addresses of its choosing.
function personOnly(caller: Caller): void {
  if (caller.tokenKind !== "person") throw problem("auth.person_required");
}

export function shown(row: DeviceRow): PushDevice {
  const device: PushDevice = { id: row.id, name: row.name, service: new URL(row.endpoint).host, loudness: JSON.parse(row.loudness), createdAt: row.createdAt };
  if (row.lastPushAt) device.lastPushAt = row.lastPushAt;
  return device;
}

export class PushDevices {
  constructor(
    private records: PushRecords,
    private clock: Clock,
    private destinations: PushDestinations,
    private maxPerPerson: number,
  ) {}

  async list(caller: Caller): Promise<PushDevice[]> {
    personOnly(caller);
    return (await this.records.devicesOf(caller.person.id)).map(shown);
  }

  /** Adds a device, or renews one whose endpoint is known: a browser re-subscribing is the same device. */
  async add(caller: Caller, raw: unknown): Promise<PushDevice> {
    personOnly(caller);
    // `expirationTime` (revision 5 states it, as `PushSubscription.toJSON()` gives it) is checked and not
    // kept: a lapsed subscription's push service answers 404 or 410, and the device is then removed.
    const input = parseShape(schemas.PushSubscriptionInput, raw, "body.invalid");
    let url: URL;
    try {
      url = new URL(input.endpoint);
    } catch {
      throw problem("push.endpoint_invalid");
    }
    if (url.protocol !== "https:" || url.username || url.password) throw problem("push.endpoint_invalid");
    const p256dh = bytesOf(input.keys.p256dh);
    const auth = bytesOf(input.keys.auth);
    if (p256dh?.length !== 65 || p256dh[0] !== 4 || auth?.length !== 16 || !(await isP256Point(p256dh))) throw problem("push.keys_invalid");
    const loudness = JSON.stringify(checkLoudness(input.loudness ?? {}));
    await this.destinations.check(url);
    const row = await this.records.saveDevice(
      {
        id: newId("dev"),
        endpoint: url.href,
        loudness,
        createdAt: this.clock.now(),
        spaceId: caller.spaceId,
        personId: caller.person.id,
        p256dh: input.keys.p256dh,
        auth: input.keys.auth,
        name: input.name,
        tokenId: caller.tokenId,
      },
      Boolean(input.loudness),
      this.maxPerPerson,
    );
    if (row === "too_many") throw problem("push.too_many_devices");
    return shown(row);
  }

  async setLoudness(caller: Caller, id: string, raw: unknown): Promise<PushDevice> {
    personOnly(caller);
    const loudness = checkLoudness(parseShape(schemas.Loudness, raw, "body.invalid"));
    const row = await this.records.setLoudness(caller.person.id, id, JSON.stringify(loudness));
    if (!row) throw problem("push.device_not_found");
    return shown(row);
  }

  async remove(caller: Caller, id: string): Promise<void> {
    personOnly(caller);
    if (!(await this.records.removeDevice(caller.person.id, id))) throw problem("push.device_not_found");
  }

  /** Every device in a space: whoever sees the space's asks in their inbox may be pushed about them. */
  inSpace(spaceId: string): Promise<DeviceRow[]> {
    return this.records.devicesInSpace(spaceId);
  }

  /** The push service said the subscription is gone (404/410): it will never deliver again. */
  async forget(id: string): Promise<void> {
    await this.records.forgetDevice(id);
  }

  pushed(id: string): Promise<void> {
    return this.records.pushed(id, this.clock.now());
  }

  /** Claims the push about an ask's turn: true once, whichever relay on the store asks first. */
  claim(askId: string, turn: number): Promise<boolean> {
    return this.records.claimNotice(askId, turn, this.clock.now());
  }
}
