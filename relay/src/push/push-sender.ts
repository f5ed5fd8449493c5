// Tells the person's devices by Web Push when an ask needs them: a new ask, or the agent's answer
// handing the move back. It listens to the event bus, so no way of asking needs to know about it.
import type { Ask, AskEvent } from "@loopback/shared/generated/types";
import { request as httpsRequest } from "node:https";
import type { Config } from "../config.ts";
import type { AskEventBus } from "../asks/ask-event-bus.ts";
import type { DeviceRow, PushDevices } from "./devices.ts";
import type { Lookup, PushDestinations } from "./push-destinations.ts";
import { wantsPush } from "./loudness.ts";
import { noticeFor } from "./notice.ts";
import type { VapidKeys } from "./vapid-keys.ts";
import { log } from "../logging/log.ts";

/** How long a push service keeps a push for a device that is offline: an ask rarely waits longer. */
export const PUSH_TTL_S = 12 * 60 * 60;
/** A push service that has not answered by then is given up on for this push. */
export const PUSH_TIMEOUT_MS = 10_000;

export class PushSender {
  /** Pushes still on their way, so a stopping relay can let them land. */
  readonly #inFlight = new Set<Promise<void>>();
  /** Pushes the push services took, refused, or said were to a device gone; read by the metrics. */
  readonly outcomes = { sent: 0, failed: 0, gone: 0 };

  constructor(
    private config: Config,
    private devices: PushDevices,
    private keys: VapidKeys,
    private destinations: PushDestinations,
  ) {}

  listen(bus: AskEventBus): () => void {
    return bus.listen((spaceId, event) => this.#onEvent(spaceId, event));
  }

  #onEvent(spaceId: string, event: AskEvent): void {
    const ask = event.ask;
    if (ask.status !== "awaiting_human") return;
    // An update that leaves the person's move as it was (an agent starting to wait) is no news.
    const reason = ask.thread.length === 0 ? "opened" : ask.thread.at(-1)!.author === "agent" ? "answered" : null;
    if (!reason) return;
    // After this turn: the inbox's frame and the agent's result go first, and the push's look-ups
    // and its once-per-turn commit stay off the path of the ask that caused them.
    const sending = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.#send(spaceId, ask, reason))
      .catch((e) => {
        this.outcomes.failed++;
        log("push").warn("could not send a push", { error: e });
      });
    this.#inFlight.add(sending);
    void sending.finally(() => this.#inFlight.delete(sending));
  }

  async #send(spaceId: string, ask: Ask, reason: "opened" | "answered"): Promise<void> {
    const devices = await this.devices.inSpace(spaceId);
    if (!devices.length) return;
    // Once per turn, whichever relay on the store saw it first.
    if (!(await this.devices.claim(ask.id, ask.thread.length))) return;
    const now = new Date();
    const payload = JSON.stringify(noticeFor(ask, reason, this.config.publicUrl));
    // One device refused or unreachable does not keep the others from their push.
    const pushing = devices.filter((d) => wantsPush(JSON.parse(d.loudness), ask.project, now)).map((d) => this.#push(d, ask.id, payload).catch((e) => console.warn(`push: could not send to device ${d.id}:`, String(e))));
    await Promise.all(pushing);
  }

  async #push(device: DeviceRow, askId: string, payload: string): Promise<void> {
    // Loaded at the first push, not at every start: most relays' starts have no push to send.
    const { default: webpush } = await import("web-push");
    const request = webpush.generateRequestDetails({ endpoint: device.endpoint, keys: { p256dh: device.p256dh, auth: device.auth } }, payload, {
      vapidDetails: { subject: this.#contact(), publicKey: this.keys.publicKey, privateKey: this.keys.privateKey },
      TTL: PUSH_TTL_S,
      urgency: "high",
      // A newer push about the same ask replaces one the device has not fetched yet.
      topic: askId.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 32),
    });
    const url = new URL(request.endpoint);
    await this.destinations.check(url);
    const status = await post(url, request.headers as Record<string, string>, request.body as Buffer, this.destinations.lookupFor(url));
    const outcome = status === 404 || status === 410 ? "gone" : status >= 200 && status < 300 ? "sent" : "failed";
    this.outcomes[outcome]++;
    if (outcome === "gone") await this.devices.forget(device.id);
    else if (outcome === "sent") await this.devices.pushed(device.id);
    else log("push").warn("{service} answered {status} for device {device}", { service: url.host, status, device: device.id });
  }

  #contact(): string {
    if (this.config.pushContact) return this.config.pushContact;
    return this.config.publicUrl.startsWith("https:") ? this.config.publicUrl : "mailto:relay@loopback.invalid";
  }

  /** Waits for pushes on their way, for a relay about to stop. */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.#inFlight]);
  }
}

/**
 * One POST to a push service, connected through `lookup` so only addresses it passes are reached. Its
 * status is all that is read: a redirect is not followed (a push service has no reason to send one,
 * and following it would reach an address nobody checked).
 */
function post(url: URL, headers: Record<string, string>, body: Buffer, lookup: Lookup): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: "POST", headers, lookup: lookup as never, timeout: PUSH_TIMEOUT_MS }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`push: ${url.host} did not answer within ${PUSH_TIMEOUT_MS} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}
