import { afterAll, beforeAll, expect, test } from "bun:test";
import { scene, type BareScene } from "../support/scene.ts";

// Once this file's relay refuses 127.0.0.1, it does so for a minute: nothing else may use it.
let s: BareScene;
beforeAll(async () => {
  s = await scene({ client: false });
});
afterAll(() => s.dispose());

test("more than twenty refused tokens from one address in a minute get it refused with 429, valid tokens too", async () => {
  // Requests without any token are not guesses.
  for (let i = 0; i < 25; i++) expect((await s.person.api("GET", "/whoami", { token: null })).body.code).toBe("auth.missing");
  expect((await s.person.api("GET", "/whoami")).status).toBe(200);

  for (let i = 0; i < 20; i++) {
    const res = await s.person.api("GET", "/snapshot", { token: `lbp_guess-${i}` });
    expect([i, res.status, res.body.code]).toEqual([i, 401, "auth.invalid"]);
  }
  const limited = await s.person.api("GET", "/snapshot", { token: "lbp_guess-20" });
  expect([limited.status, limited.body.code]).toEqual([429, "auth.rate_limited"]);

  const valid = await s.person.api("GET", "/whoami");
  expect([valid.status, valid.body.code]).toEqual([429, "auth.rate_limited"]);
  const mcp = await fetch(`${s.relay.url}/mcp`, { method: "POST", headers: { Authorization: `Bearer ${s.person.token}`, "Content-Type": "application/json" }, body: "{}" });
  expect(mcp.status).toBe(429);
});
