// How a relay that takes bearer tokens answers OAuth-capable clients (the MCP authorization spec,
// RFC 9728, RFC 6750). Every 401 names the relay's protected-resource metadata; that metadata names
// no authorization server, because tokens are minted by `loopback token create`, not by OAuth. A
// client that then falls back to the relay's own origin as its authorization server (as MCP
// 2025-03-26 had it) finds no authorization-server metadata, and its registration or token request
// is refused with an OAuth error saying what is wrong, instead of a 404 it cannot read.
import { problem } from "@loopback/shared/problems";
import { problemResponse } from "./problem-response.ts";
import { requestUrl } from "./request-url.ts";

const METADATA_PATH = "/.well-known/oauth-protected-resource";
/** Where a client that takes the relay's origin for its authorization server registers, asks for tokens, and signs in. */
const OAUTH_FALLBACK_PATHS = new Set(["/register", "/token", "/authorize"]);
/** The resources that have metadata of their own: the whole relay, and MCP. */
const RESOURCES = new Set(["", "/mcp"]);
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

export const NO_OAUTH =
  "This relay takes a Loopback token, sent as `Authorization: Bearer <token>`, and issues no OAuth clients or tokens. " +
  "The token this client sent is missing, unknown here, or revoked: mint one with `loopback token create --person NAME --agent` and configure the client to send it.";

type Handler<S> = (request: Request, server: S) => Response | undefined | Promise<Response | undefined>;

export class ProtectedResource {
  #publicUrl: () => string;

  /** `publicUrl` is read on each request: the server settles it once it listens. */
  constructor(publicUrl: () => string) {
    this.#publicUrl = publicUrl;
  }

  /** True for the paths this answers: the metadata, and the OAuth endpoints a client may try at the origin. */
  serves(pathname: string): boolean {
    return pathname.startsWith(METADATA_PATH) || OAUTH_FALLBACK_PATHS.has(pathname);
  }

  handle(request: Request, url: URL): Response {
    const { pathname } = url;
    if (pathname.startsWith(METADATA_PATH)) {
      const resource = pathname.slice(METADATA_PATH.length).replace(/\/+$/, "");
      if (!RESOURCES.has(resource) || (request.method !== "GET" && request.method !== "HEAD")) return notFound();
      const metadata = { resource: `${this.origin(request)}${resource}`, bearer_methods_supported: ["header"], resource_name: "Loopback relay" };
      // Public facts, fetched by browser-based clients too.
      return Response.json(metadata, { headers: { "Access-Control-Allow-Origin": "*", "Cache-Control": "public, max-age=3600" } });
    }
    // A person's browser sent to sign in reads words; a client reads an OAuth error (RFC 6749 §5.2, RFC 6750 §3.1).
    if (pathname === "/authorize") return new Response(`${NO_OAUTH}\n`, { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" } });
    return Response.json({ error: "invalid_token", error_description: NO_OAUTH }, { status: 401, headers: { "Cache-Control": "no-store" } });
  }

  /** Wraps the server's fetch: every 401 it answers carries `WWW-Authenticate: Bearer` with the metadata's URL. */
  challenging<S>(handler: Handler<S>): Handler<S> {
    return async (request, server) => {
      const response = await handler(request, server);
      if (response?.status === 401 && !response.headers.has("www-authenticate")) response.headers.set("WWW-Authenticate", this.challenge(request));
      return response;
    };
  }

  challenge(request: Request): string {
    const resource = requestUrl(request).pathname === "/mcp" ? "/mcp" : "";
    const params = [`resource_metadata="${this.origin(request)}${METADATA_PATH}${resource}"`];
    // RFC 6750 §3.1: a request that sent no credentials is told none was sent, not that it was wrong.
    if (request.headers.has("authorization")) params.push('error="invalid_token"');
    return `Bearer ${params.join(", ")}`;
  }

  /**
   * The origin the client reached: RFC 9728 has the client compare the metadata's `resource` with the
   * URL it dialed. The public URL, or the loopback name the client used; no other Host is believed.
   */
  origin(request: Request): string {
    const publicUrl = new URL(this.#publicUrl());
    const host = (request.headers.get("host") ?? "").toLowerCase();
    if (host && host !== publicUrl.host && LOOPBACK_NAMES.has(host.replace(/:\d*$/, ""))) return `http://${host}`;
    return publicUrl.origin;
  }
}

const notFound = () => problemResponse(problem("route.not_found"));
