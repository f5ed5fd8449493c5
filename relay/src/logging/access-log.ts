// One access line per request: method, path, status, time to the response's headers, and the client's
// address. The query is left out (it is where secrets travel in other apps), and so is the ticket
// in an upload URL: nothing in the line can be used to act as anyone.
import { log } from "./log.ts";

const http = log("http");
const UPLOAD = /^(\/api\/v1\/uploads\/[^/]+\/)[^/]+/;

type Handler<S> = (request: Request, server: S) => Response | undefined | Promise<Response | undefined>;

/** The path as it may be logged. */
export const loggedPath = (pathname: string): string => pathname.replace(UPLOAD, "$1…").slice(0, 300);

/** Wraps the server's fetch; `addressOf` is read after it ran (it is the one that learns the address). */
export function accessLog<S>(addressOf: (request: Request) => string, handler: Handler<S>): Handler<S> {
  return async (request, server) => {
    const started = performance.now();
    let status = 500;
    try {
      const response = await handler(request, server);
      // No response: the request became a WebSocket.
      status = response?.status ?? 101;
      return response;
    } finally {
      const ms = Math.round((performance.now() - started) * 100) / 100;
      // Written once the response is on its way: the line costs the request nothing.
      setImmediate(() => {
        const properties = { method: request.method, path: loggedPath(new URL(request.url, "http://host.invalid").pathname), status, ms, address: addressOf(request) };
        const line = "{method} {path} {status} {ms} ms {address}";
        if (status >= 500) http.error(line, properties);
        else if (status === 429) http.warn(line, properties);
        else http.info(line, properties);
      });
    }
  };
}
