// The web inbox: the same Svelte inbox as the extension's side panel, built by `npm run build` into
// extension/.output/web (a shipped build carries it as web/ beside its code) and served under /inbox/.
import { existsSync } from "node:fs";
import { join, normalize, resolve, sep } from "node:path";
import { SHIPPED } from "../shipped.ts";

export const WEB_INBOX_DIR = SHIPPED === "clone" ? resolve(import.meta.dir, "../../../extension/.output/web") : join(import.meta.dir, "web");

const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

export function webInbox(headers: Record<string, string>, dir = WEB_INBOX_DIR) {
  return async (pathname: string): Promise<Response> => {
    let rel: string;
    try {
      rel = normalize(decodeURIComponent(pathname.slice("/inbox/".length)) || "index.html");
    } catch {
      return new Response("Not found", { status: 404, headers });
    }
    const path = join(dir, rel);
    // With the separator: "web-other/x" starts with "web" too.
    if (!path.startsWith(dir + sep)) return new Response("Not found", { status: 404, headers });
    const file = Bun.file(existsSync(path) && !path.endsWith("/") ? path : join(dir, "index.html"));
    if (!(await file.exists())) {
      return new Response("The web inbox is not built yet: run `npm run build`.", { status: 404, headers: { ...headers, "Content-Type": "text/plain" } });
    }
    return new Response(file, {
      headers: { ...headers, "Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer" },
    });
  };
}
