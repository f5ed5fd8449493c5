// A browser page of another origin has no business on the event socket, even holding a token: only
// the relay's own pages, the extension, clients without an Origin and LOOPBACK_ALLOWED_ORIGINS get on.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { EventSocket } from "../support/person.ts";
import { scene, type BareScene } from "../support/scene.ts";

const LISTED = "https://inbox.example.org";
let s: BareScene;
beforeAll(async () => {
  s = await scene({ client: false, env: { LOOPBACK_ALLOWED_ORIGINS: `https://other.example, ${LISTED}/` } });
});
afterAll(() => s.dispose());

/** The status of an upgrade with this Origin (none when undefined), authenticated with ada's token. */
async function upgrade(origin: string | undefined): Promise<number> {
  const headers: Record<string, string> = { Authorization: `Bearer ${s.person.token}` };
  if (origin !== undefined) headers.Origin = origin;
  try {
    const socket = await EventSocket.open(s.relay.url, ["loopback.v1"], headers);
    await socket.next((f) => f.type === "snapshot");
    socket.close();
    return 101;
  } catch (e) {
    return (e as { status?: number }).status ?? -1;
  }
}

test("the relay's own origin, the extension's, a listed origin and no Origin at all get on the socket", async () => {
  const own = new URL(s.relay.url).origin;
  for (const origin of [undefined, own, "chrome-extension://abcdefghijklmnopabcdefghijklmnop", "moz-extension://6b1f3a4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b", LISTED]) {
    expect([origin, await upgrade(origin)]).toEqual([origin, 101]);
  }
});

test("any other origin is refused with 403 origin.refused before the upgrade, token or not", async () => {
  for (const origin of ["http://evil.example", "https://inbox.example.org.evil.example", "http://127.0.0.1.evil.example", "null", "file://", "not a url", "http://localhost.evil.example"]) {
    expect([origin, await upgrade(origin)]).toEqual([origin, 403]);
  }
  const res = await fetch(`${s.relay.url}/api/v1/events`, { headers: { Origin: "http://evil.example", Upgrade: "websocket", Connection: "Upgrade", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Protocol": "loopback.v1", Authorization: `Bearer ${s.person.token}` } });
  expect([res.status, (await res.json()).code]).toEqual([403, "origin.refused"]);
});
