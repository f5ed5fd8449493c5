import type { Ask, AskPage, EventTicket, Loudness, Problem, PushDevice, PushDeviceList, PushKey, PushSubscriptionInput, Reply, Snapshot, Whoami } from "@loopback/shared/generated/types";
import { RelayError } from "./relay-error";
import { REVISION, REVISION_HEADER, compareRevision, type RevisionGap } from "./revision";

export interface RelayClientOptions {
  /** The relay's origin, such as `https://loopback.example.com`. */
  base: string;
  token: string;
  /** Told the relay's revision gap after every response, so the UI can ask for an update. */
  onRevision?: (gap: RevisionGap) => void;
  fetch?: typeof fetch;
}

/** The person's REST API under /api/v1. Every request names our revision; the token never leaves a header. */
export class RelayClient {
  readonly base: string;
  readonly #token: string;
  readonly #onRevision?: (gap: RevisionGap) => void;
  readonly #fetch: typeof fetch;

  constructor(options: RelayClientOptions) {
    this.base = normalizeBase(options.base);
    this.#token = options.token;
    this.#onRevision = options.onRevision;
    this.#fetch = options.fetch ?? ((...args) => globalThis.fetch(...args));
  }

  /** Where the event socket lives: the same host, ws(s) for http(s). */
  get eventsUrl(): string {
    return this.base.replace(/^http/, "ws") + "/api/v1/events";
  }

  whoami(signal?: AbortSignal): Promise<Whoami> {
    return this.#json("GET", "/whoami", undefined, signal);
  }

  ticket(signal?: AbortSignal): Promise<EventTicket> {
    return this.#json("POST", "/events/tickets", undefined, signal);
  }

  snapshot(signal?: AbortSignal): Promise<Snapshot> {
    return this.#json("GET", "/snapshot", undefined, signal);
  }

  history(before: string | undefined, limit = 25, signal?: AbortSignal): Promise<AskPage> {
    const query = new URLSearchParams({ limit: String(limit) });
    if (before) query.set("before", before);
    return this.#json("GET", `/asks?${query}`, undefined, signal);
  }

  ask(id: string, signal?: AbortSignal): Promise<Ask> {
    return this.#json("GET", `/asks/${encodeURIComponent(id)}`, undefined, signal);
  }

  /** `keepalive` lets the request outlive the page, for a reply sent as the page closes. */
  reply(id: string, reply: Reply, signal?: AbortSignal, options: { keepalive?: boolean } = {}): Promise<Ask> {
    return this.#json("POST", `/asks/${encodeURIComponent(id)}/reply`, reply, signal, options.keepalive);
  }

  pushKey(signal?: AbortSignal): Promise<PushKey> {
    return this.#json("GET", "/push/key", undefined, signal);
  }

  pushDevices(signal?: AbortSignal): Promise<PushDeviceList> {
    return this.#json("GET", "/push/devices", undefined, signal);
  }

  addPushDevice(subscription: PushSubscriptionInput, signal?: AbortSignal): Promise<PushDevice> {
    return this.#json("POST", "/push/devices", subscription, signal);
  }

  setPushLoudness(id: string, loudness: Loudness, signal?: AbortSignal): Promise<PushDevice> {
    return this.#json("PUT", `/push/devices/${encodeURIComponent(id)}/loudness`, loudness, signal);
  }

  async removePushDevice(id: string, signal?: AbortSignal): Promise<void> {
    await this.#send("DELETE", `/push/devices/${encodeURIComponent(id)}`, undefined, signal);
  }

  async file(uploadId: string, signal?: AbortSignal): Promise<Blob> {
    const response = await this.#send("GET", `/files/${encodeURIComponent(uploadId)}`, undefined, signal);
    return response.blob();
  }

  async #json<T>(method: string, path: string, body: unknown, signal?: AbortSignal, keepalive?: boolean): Promise<T> {
    const response = await this.#send(method, path, body, signal, keepalive);
    return (await response.json()) as T;
  }

  async #send(method: string, path: string, body: unknown, signal?: AbortSignal, keepalive = false): Promise<Response> {
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.#token}`,
      [REVISION_HEADER]: REVISION,
      Accept: "application/json",
    };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response: Response;
    try {
      response = await this.#fetch(`${this.base}/api/v1${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
        credentials: "omit",
        cache: "no-store",
        ...(keepalive ? { keepalive } : {}),
      });
    } catch (e) {
      if (signal?.aborted) throw e;
      throw new RelayError("unreachable", `The relay at ${this.base} could not be reached.`);
    }
    this.#onRevision?.(compareRevision(response.headers.get(REVISION_HEADER)));
    if (response.ok) return response;
    throw await errorFrom(response);
  }
}

async function errorFrom(response: Response): Promise<RelayError> {
  const problem = await readProblem(response);
  if (response.status === 401) {
    return new RelayError("unauthorized", problem?.message ?? "The relay does not accept this token.", 401, problem);
  }
  if (response.status === 409 && problem?.code === "reload") {
    return new RelayError("reload", problem.message, 409, problem);
  }
  if (problem) return new RelayError("refused", problem.message, response.status, problem);
  return new RelayError(
    "unreachable",
    `The relay answered ${response.status} ${response.statusText}: is this a Loopback relay?`,
    response.status,
  );
}

async function readProblem(response: Response): Promise<Problem | undefined> {
  try {
    const body = (await response.json()) as Partial<Problem>;
    if (typeof body?.code === "string" && typeof body.message === "string") return { code: body.code, message: body.message };
  } catch {
    // Not JSON: not a Problem.
  }
  return undefined;
}

/** `https://host:port/anything/` → `https://host:port`; throws on anything that is not http(s). */
export function normalizeBase(input: string): string {
  const url = new URL(input.trim());
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new TypeError("The relay address must start with http:// or https://");
  return url.origin;
}
