import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeBrowser } from "wxt/testing/fake-browser";
import { readToken } from "../worker/storage-items";
import { ConnectionForm } from "./connection-form.svelte";

const RELAY = "http://relay.test";

/** A relay that knows one person's token. */
function relayKnowing(token: string) {
  return vi.fn(async (url: string, init?: RequestInit) => {
    const auth = (init?.headers as Record<string, string>)?.Authorization;
    if (auth !== `Bearer ${token}`) return Response.json({ code: "auth.invalid", message: "That token is not known here, or it was revoked." }, { status: 401 });
    if (url.endsWith("/whoami")) return Response.json({ space: "default", actor: { id: "p1", name: "Ada" } });
    if (url.endsWith("/push/devices")) return Response.json({ devices: [] });
    return new Response(null, { status: 404 });
  });
}

describe("the options page's connection form", () => {
  // Put back by hand, not with vi.unstubAllGlobals(): that would take WXT's fake `browser` with it.
  const realFetch = globalThis.fetch;
  beforeEach(() => {
    fakeBrowser.reset();
    vi.spyOn(fakeBrowser.permissions, "request").mockResolvedValue(true);
    vi.stubGlobal("fetch", relayKnowing("lbp_good"));
  });
  afterEach(() => vi.stubGlobal("fetch", realFetch));

  it("says Connected only once the token is stored, so closing the page then keeps it", async () => {
    const storage = fakeBrowser.storage.local;
    const set = storage.set.bind(storage);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    vi.spyOn(storage, "set").mockImplementation(async (items) => {
      await held;
      return set(items);
    });

    const form = new ConnectionForm();
    form.relayUrl = RELAY;
    form.token = "lbp_good";
    const connecting = form.connect(true);
    await vi.waitFor(() => expect(storage.set).toHaveBeenCalled());
    // The relay said yes, but nothing is stored yet: the page must not say it worked.
    expect(form.result).toBeNull();
    expect(form.busy).toBe(true);

    release();
    await connecting;
    expect(form.result).toMatchObject({ ok: true, who: { actor: { name: "Ada" } } });
    expect(form.saved).toBe(true);
    expect(await readToken()).toBe("lbp_good");
  });

  it("tests without saving, and says it works", async () => {
    const form = new ConnectionForm();
    form.relayUrl = RELAY;
    form.token = "lbp_good";
    await form.connect(false);
    expect(form.result).toMatchObject({ ok: true });
    expect(form.saved).toBe(false);
    expect(await readToken()).toBe("");
  });

  it("keeps what it had and says why when the token cannot be stored", async () => {
    vi.spyOn(fakeBrowser.storage.local, "set").mockRejectedValue(new Error("The storage quota is used up."));
    const form = new ConnectionForm();
    form.relayUrl = RELAY;
    form.token = "lbp_good";
    await form.connect(true);
    expect(form.result).toEqual({ ok: false, reason: "The storage quota is used up." });
    expect(form.saved).toBe(false);
    expect(form.token).toBe("lbp_good");
  });
});
