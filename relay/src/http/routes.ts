// The person's API at /api/v1, as the contract declares it. Each route reads the request, calls the
// relay's services and writes the answer; every rule lives in the services.
import { Elysia } from "elysia";
import * as v from "valibot";
import { problem } from "@loopback/shared/problems";
import { MAX_BODY_BYTES } from "@loopback/shared/ask-rules/index";
import type { Relay } from "../relay.ts";
import { readCappedBody } from "./read-capped-body.ts";
import { problemResponse } from "./problem-response.ts";
import { downgradeAsk, downgradePage, downgradeSnapshot } from "../revisions/downgrade.ts";
import { assertNotNewer, clientRevision, revisionHeaders } from "./revision-headers.ts";

const Limit = v.pipe(v.string(), v.regex(/^\d{1,3}$/), v.transform(Number), v.minValue(1), v.maxValue(100));
// Stored times are compared as text, so `before` is first brought to their exact form (UTC, milliseconds).
const Before = v.pipe(
  v.string(),
  v.isoTimestamp(),
  v.transform((s) => new Date(s)),
  v.check((d) => !Number.isNaN(d.getTime())),
  v.transform((d) => d.toISOString()),
);

async function readJson(request: Request): Promise<unknown> {
  const bytes = await readCappedBody(request, MAX_BODY_BYTES, "body.too_large");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw problem("body.malformed", "It is not UTF-8.");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw problem("body.malformed");
  }
}

export function apiRoutes(relay: Relay, addressOf: (request: Request) => string) {
  const headers = revisionHeaders(relay.config.build);
  const caller = (request: Request) => relay.authenticate(request.headers.get("authorization"), addressOf(request));

  return new Elysia({ prefix: "/api/v1" })
    .onRequest(({ request, set }) => {
      Object.assign(set.headers, headers);
      assertNotNewer(request);
    })
    .onError(({ code, error }) => {
      if (code === "NOT_FOUND") return problemResponse(problem("route.not_found"), headers);
      return problemResponse(error, headers);
    })
    .get("/whoami", ({ request }) => {
      const c = caller(request);
      return { space: c.spaceName, actor: c.person };
    })
    .post(
      "/events/tickets",
      ({ request, set }) => {
        const c = caller(request);
        set.status = 201;
        return relay.tickets.issue(c, clientRevision(request));
      },
      { parse: "none" },
    )
    .get("/snapshot", ({ request }) => downgradeSnapshot(relay.asks.snapshot(caller(request)), clientRevision(request)))
    .get("/asks", ({ request, query }) => {
      const c = caller(request);
      const limit = query.limit === undefined ? undefined : v.safeParse(Limit, query.limit);
      const before = query.before === undefined ? undefined : v.safeParse(Before, query.before);
      if (limit && !limit.success) throw problem("query.invalid", "`limit` must be a whole number from 1 to 100.");
      if (before && !before.success) throw problem("query.invalid", "`before` must be a date-time such as 2026-01-31T12:00:00.000Z.");
      return downgradePage(relay.asks.history(c, limit?.output, before?.output), clientRevision(request));
    })
    .get("/asks/:id", ({ request, params }) => downgradeAsk(relay.asks.get(caller(request), params.id), clientRevision(request)))
    .post(
      "/asks/:id/reply",
      async ({ request, params }) => {
        const c = caller(request);
        return downgradeAsk(relay.asks.reply(c, params.id, await readJson(request)), clientRevision(request));
      },
      { parse: "none" },
    )
    .get("/push/key", ({ request }) => {
      caller(request);
      return { publicKey: relay.pushKeys.publicKey };
    })
    .get("/push/devices", ({ request }) => ({ items: relay.pushDevices.list(caller(request)) }))
    .post(
      "/push/devices",
      async ({ request, set }) => {
        const c = caller(request);
        const device = relay.pushDevices.add(c, await readJson(request));
        set.status = 201;
        return device;
      },
      { parse: "none" },
    )
    .put(
      "/push/devices/:id/loudness",
      async ({ request, params }) => {
        const c = caller(request);
        return relay.pushDevices.setLoudness(c, params.id, await readJson(request));
      },
      { parse: "none" },
    )
    .delete("/push/devices/:id", ({ request, params, set }) => {
      relay.pushDevices.remove(caller(request), params.id);
      set.status = 204;
      return null;
    })
    .get("/files/:uploadId", ({ request, params }) => {
      const file = relay.uploads.read(caller(request), params.uploadId);
      return new Response(file.bytes as Uint8Array<ArrayBuffer>, {
        headers: {
          ...headers,
          "Content-Type": file.contentType,
          "X-Content-Type-Options": "nosniff",
          "Content-Security-Policy": "default-src 'none'; sandbox",
          "Cache-Control": "private, max-age=86400, immutable",
        },
      });
    })
    .put(
      "/uploads/:spaceId/:token",
      async ({ request, params, set }) => {
        const receipt = await relay.uploads.store(params.spaceId, params.token, request.headers.get("content-type"), request.body);
        set.status = 201;
        return receipt;
      },
      { parse: "none" },
    );
}
