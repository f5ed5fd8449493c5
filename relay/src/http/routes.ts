// The person's API at /api/v1, as the contract declares it. Each route reads the request, calls the
// relay's services and writes the answer; every rule lives in the services. A route table of our own
// over the standard Request, so every path of the server is routed one way.
import * as v from "valibot";
import { problem } from "@loopback/shared/problems";
import { MAX_BODY_BYTES, MAX_REPLY_BYTES } from "@loopback/shared/ask-rules/index";
import type { AskService } from "../asks/ask-service.ts";
import type { Caller } from "../auth/gate.ts";
import { assertPerson } from "../auth/who-sees-an-ask.ts";
import type { Config } from "../config.ts";
import type { TicketBook } from "../auth/event-tickets.ts";
import type { PushDevices } from "../push/devices.ts";
import type { VapidKeys } from "../push/vapid-keys.ts";
import type { UploadService } from "../uploads/upload-service.ts";
import { readCappedBody } from "../read-capped-body.ts";
import { problemResponse } from "./problem-response.ts";
import { downgradeAsk, downgradePage, isShownTo, snapshotFor } from "../revisions/downgrade.ts";
import { assertNotNewer, clientRevision, revisionHeaders } from "./revision-headers.ts";
import { REVISION } from "@loopback/shared/generated/revision";

const Limit = v.pipe(v.string(), v.regex(/^\d{1,3}$/), v.transform(Number), v.minValue(1), v.maxValue(100));
// Stored times are compared as text, so `before` is first brought to their exact form (UTC, milliseconds).
const Before = v.pipe(
  v.string(),
  v.isoTimestamp(),
  v.transform((s) => new Date(s)),
  v.check((d) => !Number.isNaN(d.getTime())),
  v.transform((d) => d.toISOString()),
);

/** Refuses bytes that are not UTF-8. Stateless when not streaming, so one serves every request. */
const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

async function readJson(request: Request, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  const bytes = await readCappedBody(request, maxBytes, "body.too_large");
  let text: string;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    throw problem("body.malformed", "It is not UTF-8.");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw problem("body.malformed");
  }
}

/** What a route handler gets: the request, its path parameters and its query. */
interface Call {
  request: Request;
  params: Record<string, string>;
  query: URLSearchParams;
}

/** A JSON answer with a status other than 200 (or none, for 204). */
class Status {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

/** A handler answers with a Response, a `Status`, or a JSON value (200). */
type Answer = Response | Status | unknown;

interface Route {
  method: string;
  pattern: RegExp;
  keys: string[];
  handle(call: Call): Answer | Promise<Answer>;
}

const created = (body: unknown) => new Status(201, body);
const NO_CONTENT = new Status(204, null);

function route(method: string, path: string, handle: Route["handle"]): Route {
  const keys: string[] = [];
  const source = path.replace(/:(\w+)/g, (_, key: string) => {
    keys.push(key);
    return "([^/]+)";
  });
  // A trailing slash names the same route.
  return { method, pattern: new RegExp(`^${source}/?$`), keys, handle };
}

/** What the person's API uses of the relay. */
export interface ApiServices {
  config: Pick<Config, "build">;
  authenticate(authorization: string | null, address: string): Promise<Caller>;
  asks: Pick<AskService, "snapshot" | "wholeSnapshot" | "history" | "get" | "read" | "reply">;
  tickets: Pick<TicketBook, "issue">;
  pushKeys: Pick<VapidKeys, "publicKey">;
  pushDevices: Pick<PushDevices, "list" | "add" | "setLoudness" | "remove">;
  uploads: Pick<UploadService, "read" | "store">;
}

export function apiRoutes(relay: ApiServices, addressOf: (request: Request) => string) {
  const headers = revisionHeaders(relay.config.build);
  const caller = (request: Request) => relay.authenticate(request.headers.get("authorization"), addressOf(request));
  /** The inbox's routes take a person's token only: an agent token reads asks through MCP, its person's alone. */
  const person = async (request: Request) => assertPerson(await caller(request));
  const PREFIX = "/api/v1";

  const routes: Route[] = [
    route("GET", "/whoami", async ({ request }) => {
      const c = await caller(request);
      return { space: c.spaceName, actor: c.person };
    }),
    route("POST", "/events/tickets", async ({ request }) => created(await relay.tickets.issue(await person(request), clientRevision(request)))),
    route("GET", "/snapshot", async ({ request }) => snapshotFor(relay.asks, await person(request), clientRevision(request))),
    route("GET", "/asks", async ({ request, query }) => {
      const c = await person(request);
      const limit = query.has("limit") ? v.safeParse(Limit, query.get("limit")) : undefined;
      const before = query.has("before") ? v.safeParse(Before, query.get("before")) : undefined;
      if (limit && !limit.success) throw problem("query.invalid", "`limit` must be a whole number from 1 to 100.");
      if (before && !before.success) throw problem("query.invalid", "`before` must be a date-time such as 2026-01-31T12:00:00.000Z.");
      return downgradePage(await relay.asks.history(c, limit?.output, before?.output), clientRevision(request));
    }),
    route("GET", "/asks/:id", async ({ request, params }) => downgradeAsk(await relay.asks.get(await person(request), params.id), clientRevision(request))),
    route("POST", "/asks/:id/reply", async ({ request, params }) => {
      // Read while the token is checked, not after: a person waits on this (and an agent behind them).
      const read = request.headers.has("authorization") ? relay.asks.read(params.id) : undefined;
      const c = await caller(request);
      const revision = clientRevision(request);
      // An ask this reader is not shown is not there for it to answer either.
      if (revision !== REVISION && !isShownTo(await relay.asks.get(c, params.id, read), revision)) throw problem("ask.not_found");
      // A reply's line comments may take more than 256 KiB: as many as the contract allows.
      return downgradeAsk(await relay.asks.reply(c, params.id, await readJson(request, MAX_REPLY_BYTES), read), revision);
    }),
    route("GET", "/push/key", async ({ request }) => {
      await caller(request);
      return { publicKey: relay.pushKeys.publicKey };
    }),
    route("GET", "/push/devices", async ({ request }) => ({ items: await relay.pushDevices.list(await caller(request)) })),
    route("POST", "/push/devices", async ({ request }) => {
      const c = await caller(request);
      return created(await relay.pushDevices.add(c, await readJson(request)));
    }),
    route("PUT", "/push/devices/:id/loudness", async ({ request, params }) => {
      const c = await caller(request);
      return relay.pushDevices.setLoudness(c, params.id, await readJson(request));
    }),
    route("DELETE", "/push/devices/:id", async ({ request, params }) => {
      await relay.pushDevices.remove(await caller(request), params.id);
      return NO_CONTENT;
    }),
    route("GET", "/files/:uploadId", async ({ request, params }) => {
      const file = await relay.uploads.read(await caller(request), params.uploadId);
      return new Response(file.bytes as Uint8Array<ArrayBuffer>, {
        headers: {
          ...headers,
          "Content-Type": file.contentType,
          "X-Content-Type-Options": "nosniff",
          "Content-Security-Policy": "default-src 'none'; sandbox",
          "Cache-Control": "private, max-age=86400, immutable",
        },
      });
    }),
    route("PUT", "/uploads/:spaceId/:token", async ({ request, params }) =>
      created(await relay.uploads.store(params.spaceId, params.token, request.headers.get("content-type"), request.body)),
    ),
  ];

  /** The matching route's answer, or the Problem that refuses the request; always with the revision headers. */
  async function handle(request: Request, url: URL): Promise<Response> {
    try {
      assertNotNewer(request);
      const path = url.pathname.startsWith(PREFIX) ? url.pathname.slice(PREFIX.length) : null;
      for (const r of path === null ? [] : routes) {
        if (r.method !== request.method) continue;
        const m = r.pattern.exec(path!);
        if (!m) continue;
        const params: Record<string, string> = {};
        r.keys.forEach((key, i) => (params[key] = decodeParam(m[i + 1])));
        return answer(await r.handle({ request, params, query: url.searchParams }));
      }
      throw problem("route.not_found");
    } catch (e) {
      return problemResponse(e, headers);
    }
  }

  function answer(result: Answer): Response {
    if (result instanceof Response) return result;
    const { status, body } = result instanceof Status ? result : { status: 200, body: result };
    if (body === null || body === undefined) return new Response(null, { status, headers });
    return Response.json(body, { status, headers });
  }

  return { handle };
}

/**
 * A path segment as the client meant it; one that is not valid percent-encoding names nothing. NUL,
 * which no id holds and PostgreSQL's text cannot carry, is read as U+FFFD: the route then finds
 * nothing and answers its own 404, on either store.
 */
function decodeParam(raw: string): string {
  try {
    return decodeURIComponent(raw).replaceAll("\0", "\uFFFD");
  } catch {
    throw problem("route.not_found");
  }
}
