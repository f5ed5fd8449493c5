import { describe, expect, it, vi } from "vitest";
import { RelayClient, normalizeBase } from "./relay-client";
import { RelayError } from "./relay-error";
import { REVISION, compareRevision } from "./revision";

// Relative to whatever revision this code writes, so a new revision does not break these.
const NEWER = String(Number(REVISION) + 1);
const OLDER = String(Number(REVISION) - 1);

function relay(status: number, body: unknown, headers: Record<string, string> = { "Loopback-Revision": REVISION }) {
  const fetch = vi.fn(async (_url: string, _init?: RequestInit) =>
    new Response(typeof body === "string" ? body : JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } }),
  );
  const onRevision = vi.fn();
  const client = new RelayClient({ base: "http://relay.test:8080/inbox/", token: "lbp_secret", fetch: fetch as typeof globalThis.fetch, onRevision });
  return { client, fetch, onRevision };
}

describe("relay client", () => {
  it("names our revision and sends the token in a header on every request", async () => {
    const { client, fetch } = relay(200, { space: "default", actor: { id: "p1", name: "Ada" } });
    await client.whoami();
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe("http://relay.test:8080/api/v1/whoami");
    expect(init!.headers).toMatchObject({ Authorization: "Bearer lbp_secret", "Loopback-Revision": REVISION });
  });

  it("posts a reply as JSON to the ask's reply address", async () => {
    const { client, fetch } = relay(200, { id: "a/1" });
    await client.reply("a/1", { outcome: "dismissed" });
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe("http://relay.test:8080/api/v1/asks/a%2F1/reply");
    expect(init!.method).toBe("POST");
    expect(init!.body).toBe('{"outcome":"dismissed"}');
  });

  it("pages history with before and limit", async () => {
    const { client, fetch } = relay(200, { items: [] });
    await client.history("2025-01-01T00:00:00.000Z", 25);
    expect(fetch.mock.calls[0]![0]).toBe("http://relay.test:8080/api/v1/asks?limit=25&before=2025-01-01T00%3A00%3A00.000Z");
  });

  it("sorts refusals by what the person can do", async () => {
    await expect(relay(401, { code: "auth.invalid", message: "That token is not known here." }).client.whoami()).rejects.toMatchObject({ kind: "unauthorized", status: 401 });
    await expect(relay(409, { code: "reload", message: "Rolled back." }).client.whoami()).rejects.toMatchObject({ kind: "reload" });
    await expect(relay(422, { code: "reply.empty", message: "An answer needs a choice." }).client.whoami()).rejects.toMatchObject({
      kind: "refused",
      message: "An answer needs a choice.",
      problem: { code: "reply.empty" },
    });
    await expect(relay(502, "<html>bad gateway</html>", {}).client.whoami()).rejects.toMatchObject({ kind: "unreachable", status: 502 });
  });

  it("reports an unreachable relay in words", async () => {
    const client = new RelayClient({ base: "http://relay.test", token: "t", fetch: (async () => { throw new TypeError("fetch failed"); }) as typeof fetch });
    const error = await client.whoami().catch((e) => e);
    expect(error).toBeInstanceOf(RelayError);
    expect(error.kind).toBe("unreachable");
    expect(error.message).toContain("http://relay.test");
  });

  it("tells when the relay is newer or older than this client", async () => {
    const newer = relay(200, {}, { "Loopback-Revision": NEWER });
    await newer.client.snapshot();
    expect(newer.onRevision).toHaveBeenCalledWith("relay_newer");
    expect(compareRevision(OLDER)).toBe("relay_older");
    expect(compareRevision(REVISION)).toBe("same");
    expect(compareRevision(null)).toBe("same");
  });

  it("keeps only the relay's origin, and refuses other schemes", () => {
    expect(normalizeBase(" https://loopback.example.com/inbox/#/ask/1 ")).toBe("https://loopback.example.com");
    expect(() => normalizeBase("ftp://x")).toThrow();
  });
});
