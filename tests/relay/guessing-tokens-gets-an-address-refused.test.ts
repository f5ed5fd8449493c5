import { afterAll, beforeAll, expect, test } from "bun:test";
import { Person } from "../support/person.ts";
import { RelayProcess } from "../support/relay-process.ts";
import { assertNoInternalErrors } from "./open-ask.ts";

// Once this file's relay refuses 127.0.0.1, it does so for a minute: nothing else may use it.
let relay: RelayProcess;
let person: Person;

beforeAll(async () => {
  relay = await new RelayProcess().start();
  person = new Person(relay.url, await relay.token("ada"));
});
afterAll(async () => {
  await relay.dispose();
  assertNoInternalErrors(relay.log);
});

test("more than twenty refused tokens from one address in a minute get it refused with 429, valid tokens too", async () => {
  // Requests without any token are not guesses.
  for (let i = 0; i < 25; i++) expect((await person.api("GET", "/whoami", { token: null })).body.code).toBe("auth.missing");
  expect((await person.api("GET", "/whoami")).status).toBe(200);

  for (let i = 0; i < 20; i++) {
    const res = await person.api("GET", "/snapshot", { token: `lbp_guess-${i}` });
    expect([i, res.status, res.body.code]).toEqual([i, 401, "auth.invalid"]);
  }
  const limited = await person.api("GET", "/snapshot", { token: "lbp_guess-20" });
  expect([limited.status, limited.body.code]).toEqual([429, "auth.rate_limited"]);

  const valid = await person.api("GET", "/whoami");
  expect([valid.status, valid.body.code]).toEqual([429, "auth.rate_limited"]);
  const mcp = await fetch(`${relay.url}/mcp`, { method: "POST", headers: { Authorization: `Bearer ${person.token}`, "Content-Type": "application/json" }, body: "{}" });
  expect(mcp.status).toBe(429);
});
