// Which browser pages may reach the relay's event socket and MCP: the relay's own (the web inbox), the
// extension's, and those the operator lists in LOOPBACK_ALLOWED_ORIGINS. A client that sends no
// Origin is not a browser page, and is let through to authenticate like any other. MCP also refuses a
// Host that is not this relay's (DNS rebinding: a page's own requests to its own name carry no Origin).
import { problem } from "@loopback/shared/problems";
import { requestUrl } from "./request-url.ts";

const EXTENSION_SCHEMES = new Set(["chrome-extension:", "moz-extension:"]);
// A page served under another name that resolves here (DNS rebinding) is not the relay's own.
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The public URL's host, parsed once per value (the URL is set once the relay listens): every MCP request compares with it. */
let publicHost: { url: string; host: string } | undefined;
function hostOf(publicUrl: string): string {
  if (publicHost?.url !== publicUrl) publicHost = { url: publicUrl, host: new URL(publicUrl).host.toLowerCase() };
  return publicHost.host;
}

export function assertAllowedOrigin(request: Request, config: { publicUrl: string; allowedOrigins: string[] }): void {
  const origin = request.headers.get("origin");
  if (origin === null) return;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw problem("origin.refused", `Origin ${origin.slice(0, 100)} is not allowed.`);
  }
  if (EXTENSION_SCHEMES.has(url.protocol) && url.host) return;
  const host = (request.headers.get("host") ?? requestUrl(request).host).toLowerCase();
  const own = url.host === hostOf(config.publicUrl) || (url.host === host && LOOPBACK_NAMES.has(url.hostname));
  if (/^https?:$/.test(url.protocol) && own) return;
  if (config.allowedOrigins.some((allowed) => allowed.replace(/\/+$/, "").toLowerCase() === url.origin.toLowerCase())) return;
  throw problem("origin.refused", `Origin ${url.origin} is not allowed.`);
}

/**
 * Refuses a request whose Host is neither the public URL's nor a loopback name. A loopback name is
 * accepted on any port, as the MCP SDK's own check does (a proxy in front of the relay has its own
 * port); DNS rebinding needs a name of the attacker's, which only the public URL may be.
 */
export function assertOwnHost(request: Request, config: { publicUrl: string }): void {
  const host = (request.headers.get("host") ?? requestUrl(request).host).toLowerCase();
  if (host === hostOf(config.publicUrl) || LOOPBACK_NAMES.has(host.replace(/:\d*$/, ""))) return;
  throw problem("origin.refused", `Host ${host.slice(0, 100)} is not this relay.`);
}
