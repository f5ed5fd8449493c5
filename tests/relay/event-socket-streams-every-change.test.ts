import { afterAll, beforeAll, expect, setSystemTime, test } from "bun:test";
import WebSocket from "ws";
import { REVISION } from "@loopback/shared/generated/revision";
import type { AskEvent, ServerEvent } from "@loopback/shared/generated/types";
import { TicketBook, TICKET_TTL_MS } from "../../relay/src/auth/event-tickets.ts";
import { openSqliteStore } from "../../relay/src/storage/sqlite/store.ts";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { structured } from "../support/agent.ts";
import { assertShape } from "../support/contract.ts";
import { DIRECT_SENDS } from "../../relay/src/events/socket.ts";
import { EventSocket, Person } from "../support/person.ts";
import { scene, type Scene } from "../support/scene.ts";
import { question } from "./open-ask.ts";

let s: Scene;
beforeAll(async () => {
  s = await scene();
});
afterAll(() => s.dispose());

const eventsUrl = () => `${s.relay.url.replace(/^http/, "ws")}/api/v1/events`;

/** Tries to open the socket and expects a plain HTTP refusal instead of an upgrade. */
function refusedUpgrade(protocols: string[], headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  const ws = new WebSocket(eventsUrl(), protocols, { headers });
  return new Promise((resolve, reject) => {
    ws.once("open", () => {
      ws.terminate();
      reject(new Error("the socket was upgraded"));
    });
    ws.once("error", reject);
    ws.once("unexpected-response", (_req, res) => {
      let text = "";
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => {
        ws.terminate();
        const body = JSON.parse(text);
        assertShape("1", "Problem", body);
        resolve({ status: res.statusCode!, body, headers: res.headers });
      });
    });
  });
}

const bearer = () => ({ Authorization: `Bearer ${s.person.token}` });
const about = (askId: string) => (f: ServerEvent) => f.type !== "snapshot" && f.ask.id === askId;

test("the socket is refused with 401 before any upgrade without a valid ticket or token", async () => {
  const none = await refusedUpgrade(["loopback.v1"]);
  expect([none.status, none.body.code]).toEqual([401, "auth.missing"]);
  const unknownToken = await refusedUpgrade(["loopback.v1"], { Authorization: "Bearer lbp_nobody" });
  expect([unknownToken.status, unknownToken.body.code]).toEqual([401, "auth.invalid"]);
  const garbage = await refusedUpgrade(["loopback.v1", "loopback.ticket.garbage"]);
  expect([garbage.status, garbage.body.code]).toEqual([401, "ticket.invalid"]);
  expect(garbage.headers["loopback-revision"]).toBe(REVISION);
});

test("the socket takes only clients that speak loopback.v1", async () => {
  const withoutProtocol = await refusedUpgrade([], bearer());
  expect([withoutProtocol.status, withoutProtocol.body.code]).toEqual([401, "ticket.invalid"]);
  const { body } = await s.person.api("POST", "/events/tickets");
  const otherProtocol = await refusedUpgrade(["loopback.v0", `loopback.ticket.${body.ticket}`]);
  expect(otherProtocol.status).toBe(401);
});

test("a ticket opens the socket once", async () => {
  const { body } = await s.person.api("POST", "/events/tickets");
  const protocols = ["loopback.v1", `loopback.ticket.${body.ticket}`];
  const socket = await EventSocket.open(s.relay.url, protocols);
  expect(socket.ws.protocol).toBe("loopback.v1");
  expect((await socket.next()).type).toBe("snapshot");
  const again = await refusedUpgrade(protocols);
  expect([again.status, again.body.code]).toEqual([401, "ticket.invalid"]);
  socket.close();
});

test("a ticket is refused once a minute has passed since it was issued", async () => {
  const dir = mkdtempSync(join(tmpdir(), "loopback-tickets-"));
  const store = openSqliteStore(dir);
  const { caller } = await store.tokens.create({ space: "default", person: "ada", kind: "person", tokenId: "tok_1", hash: "0", at: new Date().toISOString() });
  const book = new TicketBook(store.tickets);
  const start = Date.now();
  try {
    setSystemTime(start);
    const older = await book.issue(caller, "2");
    expect(Date.parse(older.expiresAt)).toBe(start + TICKET_TTL_MS);
    setSystemTime(start + 1000);
    const newer = await book.issue(caller, "2");
    setSystemTime(start + TICKET_TTL_MS + 1);
    expect(await book.redeem(older.ticket)).toBeUndefined();
    expect(await book.redeem(newer.ticket)).toEqual({ caller, revision: "2" });
    expect(await book.redeem(newer.ticket)).toBeUndefined();
  } finally {
    setSystemTime();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a client that can send headers opens the socket with its bearer token", async () => {
  const socket = await EventSocket.open(s.relay.url, ["loopback.v1"], bearer());
  expect(socket.ws.protocol).toBe("loopback.v1");
  expect((await socket.next()).type).toBe("snapshot");
  socket.close();
});

test("the first frame is the snapshot, then each change to an ask; an ask opened by a blocking call says waiting in its first frame", async () => {
  const earlier = await question(s.person, s.agent);
  const socket = await s.person.socket();
  const first = await socket.next();
  expect(first.type).toBe("snapshot");
  expect(first.type === "snapshot" && first.snapshot.open.map((a) => a.id)).toContain(earlier.ask.id);

  const { ask, call } = await question(s.person, s.agent);
  await s.person.reply(ask.id, { outcome: "answered", selected: ["A"] });
  await call;
  const seen: [string, string, boolean][] = [];
  for (let i = 0; i < 3; i++) {
    const { type, ask: a } = (await socket.next(about(ask.id))) as AskEvent;
    seen.push([type, a.status, a.waiting]);
  }
  expect(seen).toEqual([
    ["ask.opened", "awaiting_human", true],
    ["ask.updated", "closed", true],
    ["ask.updated", "closed", false],
  ]);

  await s.person.reply(earlier.ask.id, { outcome: "dismissed" });
  await earlier.call;
  socket.close();
});

test("every inbox of the space hears each change, whether a few are open (each sent it) or many (one copy shared)", async () => {
  // Two of ada's tokens: one may hold only so many sockets.
  const people = [s.person, new Person(s.relay.url, await s.relay.token("ada"))];
  /** How many of `sockets` were sent a frame that matches. */
  const heard = async (sockets: EventSocket[], match: (f: ServerEvent) => boolean) => (await Promise.allSettled(sockets.map((socket) => socket.next(match)))).filter((r) => r.status === "fulfilled").length;
  const open = async (n: number) => {
    const sockets = await Promise.all(Array.from({ length: n }, (_, i) => people[i % 2].socket()));
    await heard(sockets, (f) => f.type === "snapshot");
    return sockets;
  };
  // Three open first, then enough more to pass DIRECT_SENDS.
  const sockets = await open(3);
  try {
    const { ask, call } = await question(s.person, s.agent);
    expect(await heard(sockets, (f) => about(ask.id)(f) && f.type === "ask.opened")).toBe(3);
    sockets.push(...(await open(DIRECT_SENDS - 2)));
    await s.person.reply(ask.id, { outcome: "answered", selected: ["A"] });
    await call;
    expect(await heard(sockets, (f) => about(ask.id)(f) && f.type === "ask.updated" && f.ask.status === "closed")).toBe(DIRECT_SENDS + 1);
  } finally {
    for (const socket of sockets) socket.close();
  }
});

test("waiting turns false when the agent gives up its call, and true again when it resumes the wait", async () => {
  const socket = await s.person.socket();
  await socket.next((f) => f.type === "snapshot");
  const stop = new AbortController();
  const cancelled = s.agent.call("ask_question", { question: "Still there?", project: "demo" }, { signal: stop.signal }).catch(() => "cancelled");
  const opened = (await socket.next((f) => f.type === "ask.opened")) as AskEvent;
  const waiting = async () => ((await socket.next(about(opened.ask.id))) as AskEvent).ask.waiting;
  expect(opened.ask.waiting).toBe(true);
  stop.abort();
  expect(await cancelled).toBe("cancelled");
  expect(await waiting()).toBe(false);

  const resumed = s.agent.call("wait_for_reply", { askId: opened.ask.id });
  expect(await waiting()).toBe(true);
  await s.person.reply(opened.ask.id, { outcome: "dismissed" });
  expect(structured(await resumed)).toEqual({ askId: opened.ask.id, reply: { outcome: "dismissed" } });
  socket.close();
});

test("keepalive frames from the client are accepted and ignored", async () => {
  const socket = await s.person.socket();
  await socket.next((f) => f.type === "snapshot");
  for (const frame of ["ping", '{"type":"keepalive"}', "", new Uint8Array([1, 2, 3])]) socket.ws.send(frame);
  const { ask, call } = await question(s.person, s.agent);
  expect(((await socket.next()) as AskEvent).ask.id).toBe(ask.id);
  expect(socket.closed).toBe(false);
  await s.person.reply(ask.id, { outcome: "dismissed" });
  await call;
  socket.close();
});

test("a client frame over the limit closes the socket", async () => {
  const socket = await s.person.socket();
  const closed = new Promise<number>((resolve) => socket.ws.once("close", resolve));
  socket.ws.send("x".repeat(64 * 1024));
  expect(await closed).toBe(1009);
});

test("a client that floods the socket with frames is cut off", async () => {
  const socket = await s.person.socket();
  const closed = new Promise<number>((resolve) => socket.ws.once("close", resolve));
  for (let i = 0; i < 200; i++) socket.ws.send("ping");
  expect(await closed).toBe(1008);
});
