import type { Loudness, PushDevice } from "@loopback/shared/generated/types";
import type { RelayClient } from "../src/relay/relay-client";
import { describeError } from "../src/relay/relay-error";

/** Which of the listed devices is this browser: the relay never shows endpoints, so it is remembered here. */
const THIS_DEVICE_KEY = "loopback.pushDevice";

/** A short name for this browser, so the person can tell their devices apart in the list. */
export function deviceName(agent = navigator.userAgent): string {
  const os = /Android/.test(agent) ? "Android" : /iPhone|iPad/.test(agent) ? "iOS" : /Mac OS X/.test(agent) ? "macOS" : /Windows/.test(agent) ? "Windows" : /Linux/.test(agent) ? "Linux" : "Device";
  const browser = /Firefox\//.test(agent) ? "Firefox" : /Edg\//.test(agent) ? "Edge" : /Chrome\//.test(agent) ? "Chrome" : /Safari\//.test(agent) ? "Safari" : "Browser";
  return `${os} · ${browser}`;
}

/** The person's devices that the relay pushes to, and this browser's own subscription. */
export class PushSettings {
  devices = $state<PushDevice[]>([]);
  thisDevice = $state<string | null>(localStorage.getItem(THIS_DEVICE_KEY));
  error = $state<string | null>(null);
  busy = $state(false);

  constructor(private client: () => RelayClient | null) {}

  /** Whether this browser can take pushes at all (iOS only once the inbox is installed to the home screen). */
  get supported(): boolean {
    return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window && window.isSecureContext;
  }

  async load(): Promise<void> {
    const client = this.client();
    if (!client) return;
    try {
      this.devices = (await client.pushDevices()).items;
      this.error = null;
    } catch (e) {
      this.error = describeError(e);
    }
  }

  /** Asks for permission, subscribes this browser with the relay's key and registers it as a device. */
  async enable(): Promise<void> {
    const client = this.client();
    if (!client) return;
    await this.#do(async () => {
      if ((await Notification.requestPermission()) !== "granted") throw new Error("Notifications are blocked for this site in the browser's settings.");
      const registration = await navigator.serviceWorker.ready;
      const { publicKey } = await client.pushKey();
      const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64url(publicKey) });
      const json = subscription.toJSON();
      const device = await client.addPushDevice({ endpoint: json.endpoint!, keys: { p256dh: json.keys!.p256dh!, auth: json.keys!.auth! }, name: deviceName() });
      localStorage.setItem(THIS_DEVICE_KEY, device.id);
      this.thisDevice = device.id;
    });
  }

  async setLoudness(id: string, loudness: Loudness): Promise<void> {
    const client = this.client();
    if (client) await this.#do(() => client.setPushLoudness(id, loudness));
  }

  async remove(id: string): Promise<void> {
    const client = this.client();
    if (!client) return;
    await this.#do(async () => {
      await client.removePushDevice(id);
      if (id === this.thisDevice) await this.#unsubscribe();
    });
  }

  /** On sign-out: this browser hears nothing more from the space. */
  async forgetThisDevice(): Promise<void> {
    const client = this.client();
    const id = this.thisDevice;
    if (client && id) await client.removePushDevice(id).catch(() => {});
    await this.#unsubscribe().catch(() => {});
    this.devices = [];
  }

  async #unsubscribe() {
    localStorage.removeItem(THIS_DEVICE_KEY);
    this.thisDevice = null;
    if (!this.supported) return;
    const registration = await navigator.serviceWorker.getRegistration();
    await (await registration?.pushManager.getSubscription())?.unsubscribe();
  }

  async #do(work: () => Promise<unknown>) {
    this.busy = true;
    this.error = null;
    try {
      await work();
      await this.load();
    } catch (e) {
      this.error = e instanceof Error && !("kind" in e) ? e.message : describeError(e);
    } finally {
      this.busy = false;
    }
  }
}

function base64url(text: string): Uint8Array<ArrayBuffer> {
  const plain = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(plain, (c) => c.charCodeAt(0));
}
