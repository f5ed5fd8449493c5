// A Web Push service of our own, on a loopback port over real TLS, as a browser's push service is to
// the relay: it hands out subscriptions with fresh P-256 keys and a secret, decrypts what it is sent
// with them (RFC 8291, through http_ece), and checks the VAPID signature (RFC 8292) against the key
// the relay publishes. Nothing it cannot decrypt and verify counts as received.
import { createECDH, randomBytes, type ECDH } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
// @ts-expect-error -- http_ece ships no types.
import ece from "http_ece";

export interface Received {
  subscription: string;
  headers: Record<string, string>;
  notice: any;
  vapid: { aud: string; exp: number; sub: string };
  at: number;
}

interface Sub {
  id: string;
  ecdh: ECDH;
  auth: Buffer;
  /** What the service answers a push to this subscription with: 201, or 404/410 once it is gone, or a redirect. */
  status: number;
  headers: Record<string, string>;
}

export class PushReceiver {
  readonly received: Received[] = [];
  /** Pushes refused because they did not decrypt or verify: a test expects none. */
  readonly refused: string[] = [];
  #subs = new Map<string, Sub>();
  #attempts = new Map<string, number>();
  #waiters: (() => void)[] = [];

  private constructor(
    private server: Server<undefined>,
    private dir: string,
    /** The certificate a relay must trust to reach this service (`NODE_EXTRA_CA_CERTS`). */
    readonly caFile: string,
    private relayKey: () => Promise<string>,
  ) {}

  /** A receiver that verifies against the key `relayKey()` names (the relay's `GET /push/key`). */
  static async start(relayKey: () => Promise<string>): Promise<PushReceiver> {
    const dir = mkdtempSync(join(tmpdir(), "loopback-push-"));
    const cert = join(dir, "cert.pem");
    const key = join(dir, "key.pem");
    const made = Bun.spawnSync(
      ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
      { stdout: "pipe", stderr: "pipe" },
    );
    if (made.exitCode !== 0) throw new Error(`openssl failed: ${made.stderr.toString()}`);
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert: Bun.file(cert), key: Bun.file(key) },
      fetch: (request) => receiver.#handle(request),
    });
    const receiver: PushReceiver = new PushReceiver(server, dir, cert, relayKey);
    return receiver;
  }

  /** Its `host:port`, for a relay's `LOOPBACK_PUSH_HOSTS`: it lives on loopback, which a relay pushes to only when told. */
  get host(): string {
    return `127.0.0.1:${this.server.port}`;
  }

  /** A new subscription, as `PushSubscription.toJSON()` gives it. */
  subscribe(): { id: string; endpoint: string; keys: { p256dh: string; auth: string } } {
    const id = randomBytes(8).toString("hex");
    const ecdh = createECDH("prime256v1");
    ecdh.generateKeys();
    const auth = randomBytes(16);
    this.#subs.set(id, { id, ecdh, auth, status: 201, headers: {} });
    return { id, endpoint: `https://127.0.0.1:${this.server.port}/push/${id}`, keys: { p256dh: ecdh.getPublicKey("base64url"), auth: auth.toString("base64url") } };
  }

  /** From now on the service answers pushes to `id` with `status` (and `headers`), as one does for a lapsed subscription. */
  answer(id: string, status: number, headers: Record<string, string> = {}): void {
    Object.assign(this.#subs.get(id)!, { status, headers });
  }

  /** How many pushes to `id` arrived, whatever they were answered. */
  attempts(id: string): number {
    return this.#attempts.get(id) ?? 0;
  }

  for(id: string): Received[] {
    return this.received.filter((r) => r.subscription === id);
  }

  /** Waits until `count` pushes have reached subscription `id`. */
  async waitFor(id: string, count = 1, timeoutMs = 10_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.for(id).length < count) {
      if (this.refused.length) throw new Error(`the receiver refused a push: ${this.refused.join("; ")}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${this.for(id).length} of ${count} pushes reached ${id}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
    return this.for(id);
  }

  async #handle(request: Request): Promise<Response> {
    const id = /^\/push\/([0-9a-f]+)$/.exec(new URL(request.url).pathname)?.[1];
    const sub = id ? this.#subs.get(id) : undefined;
    if (!sub || request.method !== "POST") return new Response(null, { status: 404 });
    const body = Buffer.from(await request.arrayBuffer());
    this.#attempts.set(sub.id, this.attempts(sub.id) + 1);
    if (sub.status !== 201) {
      for (const w of this.#waiters.splice(0)) w();
      return new Response(null, { status: sub.status, headers: sub.headers });
    }
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => (headers[name] = value));
    try {
      const vapid = await this.#verify(headers.authorization ?? "", new URL(request.url).origin);
      if (headers["content-encoding"] !== "aes128gcm") throw new Error(`Content-Encoding is ${headers["content-encoding"]}`);
      const plain: Buffer = ece.decrypt(body, { version: "aes128gcm", privateKey: sub.ecdh, authSecret: sub.auth });
      this.received.push({ subscription: sub.id, headers, notice: JSON.parse(plain.toString("utf8")), vapid, at: performance.now() });
    } catch (e) {
      this.refused.push(String(e));
      return new Response(String(e), { status: 400 });
    } finally {
      for (const w of this.#waiters.splice(0)) w();
    }
    return new Response(null, { status: 201 });
  }

  /** `Authorization: vapid t=<JWT>, k=<key>`: the key must be the relay's, and sign the JWT (ES256). */
  async #verify(authorization: string, audience: string) {
    const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization);
    if (!m) throw new Error(`Authorization is not VAPID: ${authorization.slice(0, 40)}`);
    const [, jwt, k] = m;
    if (k !== (await this.relayKey())) throw new Error("the VAPID key is not the relay's");
    const [header, claims, signature] = jwt!.split(".");
    const key = await crypto.subtle.importKey("raw", Buffer.from(k!, "base64url"), { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
    const ok = await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key, Buffer.from(signature!, "base64url"), new TextEncoder().encode(`${header}.${claims}`));
    if (!ok) throw new Error("the VAPID signature does not verify");
    if (JSON.parse(Buffer.from(header!, "base64url").toString()).alg !== "ES256") throw new Error("the VAPID JWT is not ES256");
    const vapid = JSON.parse(Buffer.from(claims!, "base64url").toString());
    if (vapid.aud !== audience) throw new Error(`the VAPID audience is ${vapid.aud}, not ${audience}`);
    // RFC 8292: at most 24 hours ahead.
    if (!(vapid.exp * 1000 > Date.now() && vapid.exp * 1000 <= Date.now() + 24 * 3600_000)) throw new Error(`the VAPID expiry ${vapid.exp} is out of range`);
    return vapid;
  }

  stop(): void {
    this.server.stop(true);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
