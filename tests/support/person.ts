// The person's side of a test: the REST API and the event socket, through real HTTP and `ws`,
// with every JSON answer checked against the frozen contract.
import WebSocket from "ws";
import type { Ask, ServerEvent } from "@loopback/shared/generated/types";
import { REVISIONS } from "@loopback/shared/generated/revision";
import { assertResponse, assertShape, declaresJson } from "./contract.ts";

/** The contract path template an API path matches, for looking up its declared responses. */
function template(path: string): string {
  const p = path.split("?")[0];
  if (/^\/asks\/[^/]+\/reply$/.test(p)) return "/asks/{id}/reply";
  if (/^\/asks\/[^/]+$/.test(p)) return "/asks/{id}";
  if (/^\/files\/[^/]+$/.test(p)) return "/files/{uploadId}";
  if (/^\/push\/devices\/[^/]+\/loudness$/.test(p)) return "/push/devices/{id}/loudness";
  if (/^\/push\/devices\/[^/]+$/.test(p)) return "/push/devices/{id}";
  if (/^\/uploads\/[^/]+\/[^/]+$/.test(p)) return "/uploads/{spaceId}/{token}";
  return p;
}

export interface ApiAnswer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** The frozen revision a request's answer must fit: the one it names, or revision 1 when it names none. */
function revisionRead(headers: Record<string, string>): string {
  const named = headers["Loopback-Revision"];
  return named && (REVISIONS as readonly string[]).includes(named) ? named : "1";
}

export class Person {
  constructor(
    readonly baseUrl: string,
    readonly token: string,
    /** The revision this client names on every request (`Loopback-Revision`), or none, as revision 1's clients. */
    readonly revision?: string,
  ) {}

  /** The same person through a client that names `revision` on its requests. */
  reading(revision: string): Person {
    return new Person(this.baseUrl, this.token, revision);
  }

  /** Calls the API and checks a JSON answer against the revision the client reads, when the contract declares it. */
  async api<T = any>(method: string, path: string, init: { body?: unknown; raw?: BodyInit; headers?: Record<string, string>; token?: string | null } = {}): Promise<ApiAnswer<T>> {
    const headers: Record<string, string> = { ...(this.revision && { "Loopback-Revision": this.revision }), ...init.headers };
    const rev = revisionRead(headers);
    const token = init.token === undefined ? this.token : init.token;
    if (token) headers.Authorization = `Bearer ${token}`;
    if (init.body !== undefined) headers["Content-Type"] ??= "application/json";
    const res = await fetch(`${this.baseUrl}/api/v1${path}`, {
      method,
      headers,
      body: init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
    });
    const type = res.headers.get("content-type") ?? "";
    const body = type.includes("application/json") ? await res.json() : await res.arrayBuffer();
    if (type.includes("application/json")) {
      // Every JSON answer is either what the contract declares for it, or a Problem.
      // A route only a later revision has is checked against the first revision that has it.
      const checked = path.startsWith("/push") && Number(rev) < 3 ? "3" : rev;
      if (declaresJson(checked, method, template(path), res.status)) assertResponse(checked, method, template(path), res.status, body);
      else assertShape(checked, "Problem", body);
    }
    return { status: res.status, body: body as T, headers: res.headers };
  }

  async snapshot() {
    return (await this.api("GET", "/snapshot")).body as { open: Ask[]; recent: Ask[] };
  }

  async reply(askId: string, reply: unknown) {
    return this.api<Ask>("POST", `/asks/${askId}/reply`, { body: reply });
  }

  /** Opens the event socket with a fresh ticket; frames are checked against the contract. */
  async socket(validate = true): Promise<EventSocket> {
    const { body } = await this.api("POST", "/events/tickets");
    return EventSocket.open(this.baseUrl, ["loopback.v1", `loopback.ticket.${body.ticket}`], undefined, validate, this.revision ?? "1");
  }
}

/** A `ws` client of the event socket that keeps every frame it received. */
export class EventSocket {
  readonly frames: ServerEvent[] = [];
  #waiters: (() => void)[] = [];
  closed = false;
  /** The close frame's code and reason, once closed. */
  closedWith?: { code: number; reason: string };

  private constructor(
    readonly ws: WebSocket,
    validate: boolean,
    revision: string,
  ) {
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data));
      if (validate) assertShape(revision, "ServerEvent", frame);
      this.frames.push(frame);
      for (const w of this.#waiters.splice(0)) w();
    });
    ws.on("close", (code, reason) => {
      this.closed = true;
      this.closedWith = { code, reason: String(reason) };
      for (const w of this.#waiters.splice(0)) w();
    });
  }

  /** `validate: false` skips the contract check, for benchmarks that time the frames; frames are checked against `revision`. */
  static open(baseUrl: string, protocols: string[], headers?: Record<string, string>, validate = true, revision = revisionRead(headers ?? {})): Promise<EventSocket> {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/api/v1/events`, protocols, { headers });
    return new Promise((resolve, reject) => {
      const socket = new EventSocket(ws, validate, revision);
      ws.once("open", () => resolve(socket));
      ws.once("unexpected-response", (_req, res) => reject(Object.assign(new Error(`refused: ${res.statusCode}`), { status: res.statusCode })));
      ws.once("error", reject);
    });
  }

  /** Waits for a frame that `match` accepts, among those received so far or to come. */
  async next(match: (f: ServerEvent) => boolean = () => true, timeoutMs = 5000): Promise<ServerEvent> {
    const deadline = Date.now() + timeoutMs;
    let seen = 0;
    for (;;) {
      for (; seen < this.frames.length; seen++) if (match(this.frames[seen])) return this.frames.splice(seen, 1)[0];
      if (this.closed) {
        // Rejecting on a later turn keeps a caller that retries in a loop from starving the event loop.
        await new Promise((r) => setTimeout(r, 0));
        throw new Error("socket closed");
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error("no matching frame in time");
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.#waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  close() {
    this.ws.close();
  }
}
