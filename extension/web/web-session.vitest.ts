import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WebSession } from "./web-session.svelte";

class IdleSocket {
  readonly CONNECTING = 0;
  readonly OPEN = 1;
  readyState = 0;
  onopen = null;
  onmessage = null;
  onclose = null;
  onerror = null;
  close() {}
  send() {}
}

function relayKnowing(token: string) {
  return vi.fn(async (url: string, init?: RequestInit) => {
    const auth = (init?.headers as Record<string, string>)?.Authorization;
    if (auth !== `Bearer ${token}`) return Response.json({ code: "auth.invalid", message: "That token is not known here, or it was revoked." }, { status: 401 });
    if (url.endsWith("/whoami")) return Response.json({ space: "default", actor: { id: "p1", name: "Grace" } });
    if (url.endsWith("/events/tickets")) return Response.json({ ticket: "t", expiresAt: "" }, { status: 201 });
    return new Response(null, { status: 404 });
  });
}

describe("the web inbox's session", () => {
  // Put back one by one, not with vi.unstubAllGlobals(): that would take the fake `browser` and
  // `chrome` of WXT's setup with it, and the files that run after this one in the same worker need them.
  const real = { WebSocket: globalThis.WebSocket, fetch: globalThis.fetch };
  beforeEach(() => {
    localStorage.clear();
    vi.stubGlobal("WebSocket", IdleSocket);
  });
  afterEach(() => {
    vi.stubGlobal("WebSocket", real.WebSocket);
    vi.stubGlobal("fetch", real.fetch);
  });

  it("keeps a token the relay knows in this origin's storage, and starts live", async () => {
    vi.stubGlobal("fetch", relayKnowing("lbp_good"));
    const session = new WebSession("http://relay.test");
    expect(await session.signIn(" lbp_good ")).toBe(true);
    expect(localStorage.getItem("loopback.token")).toBe("lbp_good");
    expect(session.who?.actor.name).toBe("Grace");
    expect(session.client?.base).toBe("http://relay.test");
    session.signOut();
    expect(localStorage.getItem("loopback.token")).toBeNull();
  });

  it("refuses a token the relay does not know, and stores nothing", async () => {
    vi.stubGlobal("fetch", relayKnowing("lbp_good"));
    const session = new WebSession("http://relay.test");
    expect(await session.signIn("lbp_bad")).toBe(false);
    expect(session.signInError).toBe("The relay does not know this token.");
    expect(localStorage.getItem("loopback.token")).toBeNull();
    expect(session.signedIn).toBe(false);
  });

  it("resumes with the stored token after a reload", () => {
    vi.stubGlobal("fetch", relayKnowing("lbp_good"));
    localStorage.setItem("loopback.token", "lbp_good");
    const session = new WebSession("http://relay.test");
    session.resume();
    expect(session.signedIn).toBe(true);
    session.signOut();
  });
});
