// Which browser pages may open the event socket: the relay's own (the web inbox), the extension's,
// and those the operator lists in LOOPBACK_ALLOWED_ORIGINS. A client that sends no Origin is not a
// browser page, and is let through to authenticate like any other.
import { problem } from "@loopback/shared/problems";
import { requestUrl } from "./request-url.ts";

const EXTENSION_SCHEMES = new Set(["chrome-extension:", "moz-extension:"]);
// A page served under another name that resolves here (DNS rebinding) is not the relay's own.
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

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
  const own = url.host === new URL(config.publicUrl).host || (url.host === host && LOOPBACK_NAMES.has(url.hostname));
  if (/^https?:$/.test(url.protocol) && own) return;
  if (config.allowedOrigins.some((allowed) => allowed.replace(/\/+$/, "").toLowerCase() === url.origin.toLowerCase())) return;
  throw problem("origin.refused", `Origin ${url.origin} is not allowed.`);
}
