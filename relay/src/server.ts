// One process, one port: the person's API, the event socket, MCP for agents and the web inbox.
import type { Server } from "bun";
import type { Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import { upgradeEvents, eventSocket, type SocketData } from "./events/socket.ts";
import { clientAddress } from "./http/client-address.ts";
import { apiRoutes } from "./http/routes.ts";
import { problemResponse } from "./http/problem-response.ts";
import { readiness } from "./http/readiness.ts";
import { revisionHeaders } from "./http/revision-headers.ts";
import { webInbox } from "./http/web-inbox.ts";
import { McpEndpoint } from "./mcp/endpoint.ts";
import { Relay } from "./relay.ts";
import { requestUrl } from "./http/request-url.ts";
import { ProtectedResource } from "./http/protected-resource.ts";
import { accessLog } from "./logging/access-log.ts";
import { configureLog } from "./logging/log.ts";
import { Metrics } from "./metrics/metrics.ts";

export interface Running {
  relay: Relay;
  server: Server<SocketData>;
  url: string;
  /** Stops taking connections (a planned restart's next process takes them); open ones go on. */
  stopListening(): void;
  stop(): Promise<void>;
}

export interface StartOptions {
  publicUrlFromEnv?: boolean;
  /** Requests wait for this before they are served (a planned restart's old process letting go). */
  gate?: Promise<void>;
  /** The clock every duration is measured on: the real one unless a test brings its own. */
  clock?: Clock;
}

export async function startServer(config: Config, opts: StartOptions = {}): Promise<Running> {
  configureLog(config.logLevel, config.logFormat);
  const addressFrom = clientAddress(config.trustedProxies);
  const relay = await Relay.open(config, opts.clock);
  const addresses = new WeakMap<Request, string>();
  const addressOf = (r: Request) => addresses.get(r) ?? "unknown";
  const api = apiRoutes(relay, addressOf);
  const headers = revisionHeaders(config.build);
  const inbox = webInbox(headers);
  const mcp = new McpEndpoint(relay);
  let gate = opts.gate;
  void gate?.then(() => (gate = undefined));
  const websocket = eventSocket(relay, () => server);
  const resource = new ProtectedResource(() => config.publicUrl);
  const metrics = new Metrics(relay, () => server.pendingWebSockets, config.metricsToken);
  const route = (request: Request, url: URL, address: string): Response | Promise<Response> => {
    const { pathname } = url;
    if (pathname === "/mcp") return mcp.handle(request, address);
    if (pathname === "/" || pathname === "/inbox") return Response.redirect("/inbox/", 302);
    if (pathname.startsWith("/inbox/")) return inbox(pathname);
    if (resource.serves(pathname)) return resource.handle(request, url);
    if (pathname === "/metrics") return metrics.handle(request, address);
    return api.handle(request, url);
  };

  let server: Server<SocketData>;
  try {
    server = Bun.serve<SocketData>({
      hostname: config.host,
      port: config.port,
      // A connection that stalls (a body declared and never sent) is closed; an authenticated MCP stream
      // is lifted out of it below, and the socket keeps its own pings.
      idleTimeout: config.idleTimeoutMs / 1000,
      // A planned restart's next process listens on the same port before this one stops (planned-restart.ts).
      reusePort: true,
      maxRequestBodySize: 64 * 1024 * 1024,
      websocket,
      fetch: accessLog(addressOf, resource.challenging(async (request, srv) => {
        if (gate) await gate;
        const address = addressFrom(srv.requestIP(request)?.address ?? "unknown", request.headers.get("x-forwarded-for"));
        addresses.set(request, address);
        const url = requestUrl(request);
        // For load balancers and the benchmark's HTTP floor: answers without touching storage.
        if (url.pathname === "/healthz") return new Response(null, { status: 204, headers });
        if (url.pathname === "/readyz") return readiness(relay.store, headers);
        if (url.pathname === "/api/v1/events") return upgradeEvents(relay, request, srv, address, headers);
        // Every answer names the code behind it, MCP's and redirects included.
        const response = await route(request, url, address);
        // A wait for a person can last minutes: only a stream MCP opened, so for a token it let in, is never idle-closed.
        if (url.pathname === "/mcp" && response.ok && response.headers.get("content-type")?.startsWith("text/event-stream")) srv.timeout(request, 0);
        for (const [name, value] of Object.entries(headers)) if (!response.headers.has(name)) response.headers.set(name, value);
        return response;
      })),
      error(error) {
        return problemResponse(error, headers);
      },
    });
  } catch (e) {
    await relay.close();
    throw e;
  }
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${server.port}`;
  if (!opts.publicUrlFromEnv) config.publicUrl = url;

  return {
    relay,
    server,
    url,
    stopListening() {
      void server.stop(false);
    },
    async stop() {
      await mcp.close();
      metrics.close();
      await relay.push.settle();
      server.stop(true);
      await relay.close();
    },
  };
}
