import { afterAll, beforeAll, expect, test } from "bun:test";
import WebSocket from "ws";
import { REVISION, REVISIONS } from "@loopback/shared/generated/revision";
import { scene, type Scene } from "../support/scene.ts";
import { question } from "./open-ask.ts";
import { uploadImage } from "./upload-image.ts";

const BUILD = "2031-04-05T06:07:08.000Z";
// Relative to the revision this code writes, so a new revision does not break these.
const NEWER = String(Number(REVISION) + 1);
let s: Scene;
beforeAll(async () => {
  s = await scene({ env: { LOOPBACK_BUILD: BUILD } });
});
afterAll(() => s.dispose());

async function send(method: string, path: string, init: { body?: BodyInit; headers?: Record<string, string>; token?: boolean } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token !== false) headers.Authorization = `Bearer ${s.person.token}`;
  const res = await fetch(`${s.relay.url}${path}`, { method, headers, body: init.body, redirect: "manual" });
  await res.arrayBuffer();
  return res;
}

test("every answer, refusals and unknown addresses included, carries Loopback-Revision and Loopback-Build", async () => {
  const { ask, call } = await question(s.person, s.agent);
  const uploadId = await uploadImage(s.agent);
  const requests: [string, string, { body?: BodyInit; headers?: Record<string, string>; token?: boolean }?][] = [
    ["GET", "/api/v1/whoami"],
    ["GET", "/api/v1/whoami", { token: false }],
    ["POST", "/api/v1/events/tickets"],
    ["GET", "/api/v1/snapshot"],
    ["GET", "/api/v1/asks?limit=5"],
    ["GET", "/api/v1/asks?limit=500"],
    ["GET", `/api/v1/asks/${ask.id}`],
    ["GET", "/api/v1/asks/ask_unknown"],
    ["POST", `/api/v1/asks/${ask.id}/reply`, { body: "{" }],
    // Past the 256 KiB a route other than a reply takes (a reply takes its line comments besides).
    ["POST", "/api/v1/push/devices", { body: "x".repeat(300 * 1024) }],
    ["GET", `/api/v1/files/${uploadId}`],
    ["GET", "/api/v1/files/upl_unknown"],
    ["GET", "/api/v1/push/key"],
    ["GET", "/api/v1/push/devices"],
    ["DELETE", "/api/v1/push/devices/dev_unknown"],
    ["PUT", "/api/v1/uploads/spc_x/up_x", { body: "x", token: false }],
    ["GET", "/api/v1/events", { token: false }],
    ["GET", "/api/v1/no/such/route"],
    ["GET", "/nowhere"],
    ["GET", "/"],
    ["GET", "/inbox/"],
    ["POST", "/mcp", { token: false, body: "{}" }],
    ["GET", "/mcp"],
  ];
  const statuses: number[] = [];
  for (const [method, path, init] of requests) {
    const res = await send(method, path, init);
    statuses.push(res.status);
    expect([method, path, res.headers.get("loopback-revision"), res.headers.get("loopback-build")]).toEqual([method, path, REVISION, BUILD]);
  }
  // The list above reaches every kind of answer it claims to.
  expect(new Set(statuses)).toEqual(new Set([200, 201, 302, 400, 401, 404, 413, 422]));

  await s.person.reply(ask.id, { outcome: "dismissed" });
  await call;
});

test("the event socket's upgrade and its refusal carry the revision too", async () => {
  const { body } = await s.person.api("POST", "/events/tickets");
  const url = `${s.relay.url.replace(/^http/, "ws")}/api/v1/events`;
  const upgraded = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const ws = new WebSocket(url, ["loopback.v1", `loopback.ticket.${body.ticket}`]);
    ws.once("upgrade", (res) => resolve(res.headers));
    ws.once("open", () => ws.close());
    ws.once("error", reject);
  });
  expect([upgraded["loopback-revision"], upgraded["loopback-build"]]).toEqual([REVISION, BUILD]);

  const refused = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const ws = new WebSocket(url, ["loopback.v1"]);
    ws.once("unexpected-response", (_req, res) => {
      resolve(res.headers);
      ws.terminate();
    });
    ws.once("error", reject);
  });
  expect([refused["loopback-revision"], refused["loopback-build"]]).toEqual([REVISION, BUILD]);
});

test("a client that writes a newer revision is told to reload with 409", async () => {
  for (const path of ["/whoami", "/snapshot", "/asks", "/asks/ask_unknown", "/nothing-here"]) {
    const res = await s.person.api("GET", path, { headers: { "Loopback-Revision": NEWER } });
    expect([path, res.status, res.body.code]).toEqual([path, 409, "reload"]);
    expect(res.headers.get("loopback-revision")).toBe(REVISION);
  }
  const reply = await s.person.api("POST", "/asks/ask_unknown/reply", { headers: { "Loopback-Revision": NEWER }, body: { outcome: "dismissed" } });
  expect([reply.status, reply.body.code]).toEqual([409, "reload"]);
});

test("a client that writes an older or the same revision is served as usual", async () => {
  for (const revision of REVISIONS) {
    const res = await s.person.api("GET", "/whoami", { headers: { "Loopback-Revision": revision } });
    expect([revision, res.status]).toEqual([revision, 200]);
    expect((await s.person.api("GET", "/snapshot", { headers: { "Loopback-Revision": revision } })).status).toBe(200);
  }
  expect((await s.person.api("GET", "/whoami", { headers: { "Loopback-Revision": "next" } })).status).toBe(200);
});
