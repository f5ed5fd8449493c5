// HTTP/1.0 lets a client leave out the Host header (HAProxy's plain `option httpchk GET /healthz`
// does). Bun then hands the relay a Request whose url is only the path; every route must still
// answer as it would with a Host, never with a 500 — but MCP, which takes only requests naming this
// relay (DNS-rebinding protection), refuses one that names none.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RelayProcess } from "../support/relay-process.ts";
import { assertNoInternalErrors } from "../support/scene.ts";

let relay: RelayProcess;
beforeAll(async () => {
  relay = await new RelayProcess().start();
});
afterAll(async () => {
  await relay.dispose();
  assertNoInternalErrors(relay.log);
});

/** Sends `request` as raw bytes and returns the status line's code. */
async function raw(request: string): Promise<number> {
  let answer = "";
  const decoder = new TextDecoder();
  await new Promise<void>((resolve, reject) => {
    Bun.connect({
      hostname: "127.0.0.1",
      port: relay.port,
      socket: {
        open: (socket) => void socket.write(request),
        data: (socket, chunk) => {
          answer += decoder.decode(chunk, { stream: true });
          if (answer.includes("\r\n\r\n")) socket.end();
        },
        close: () => resolve(),
        error: (_socket, e) => reject(e),
      },
    }).catch(reject);
  });
  return Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1]);
}

test("requests without a Host header get the answer their route gives with one, never a 500; MCP refuses them as naming no relay", async () => {
  const without: Record<string, number> = {};
  const withHost: Record<string, number> = {};
  for (const path of ["/healthz", "/api/v1/whoami", "/api/v1/nope", "/mcp", "/", "/inbox/"]) {
    without[path] = await raw(`GET ${path} HTTP/1.0\r\n\r\n`);
    withHost[path] = await raw(`GET ${path} HTTP/1.0\r\nHost: 127.0.0.1:${relay.port}\r\n\r\n`);
  }
  expect(withHost["/healthz"]).toBe(204);
  expect(without).toEqual({ ...withHost, "/mcp": 403 });
  expect(withHost["/mcp"]).toBe(401);
});
