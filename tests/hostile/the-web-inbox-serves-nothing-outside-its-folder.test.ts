// The web inbox is served from extension/.output/web. A folder beside it whose name merely starts
// with "web" (a planted one here) must be as unreachable as any other file outside it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, RelayProcess } from "../support/relay-process.ts";
import { assertNoInternalErrors } from "../support/scene.ts";

const SIBLING = `web-planted-${crypto.randomUUID().slice(0, 8)}`;
const SIBLING_DIR = join(ROOT, "extension/.output", SIBLING);
const SECRET = "a file beside the web inbox, never to be served";

let relay: RelayProcess;
beforeAll(async () => {
  mkdirSync(SIBLING_DIR, { recursive: true });
  writeFileSync(join(SIBLING_DIR, "secret.txt"), SECRET);
  relay = await new RelayProcess().start();
});
afterAll(async () => {
  rmSync(SIBLING_DIR, { recursive: true, force: true });
  await relay.dispose();
  assertNoInternalErrors(relay.log);
});

test("a sibling folder whose name starts with the web folder's is not served", async () => {
  for (const path of [`/inbox/..%2f${SIBLING}%2fsecret.txt`, `/inbox/..%2F${SIBLING}/secret.txt`, `/inbox/%2e%2e%2f${SIBLING}%2fsecret.txt`]) {
    const res = await fetch(`${relay.url}${path}`);
    const text = await res.text();
    expect([path, text.includes(SECRET)]).toEqual([path, false]);
    expect(res.status).toBeLessThan(500);
  }
});

test("paths out of the web folder are refused, whatever their spelling", async () => {
  for (const path of ["/inbox/..%2f..%2fpackage.json", "/inbox/..%2f..%2f..%2fpackage.json", "/inbox/%2e%2e/%2e%2e/package.json"]) {
    const res = await fetch(`${relay.url}${path}`);
    expect([path, (await res.text()).includes('"workspaces"')]).toEqual([path, false]);
  }
});
