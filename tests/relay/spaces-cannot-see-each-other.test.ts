import { afterAll, beforeAll, expect, test } from "bun:test";
import type { AskEvent } from "@loopback/shared/generated/types";
import { Agent, refusal } from "../support/agent.ts";
import { Person } from "../support/person.ts";
import { RelayProcess } from "../support/relay-process.ts";
import { assertNoInternalErrors } from "../support/scene.ts";
import { question, review } from "./open-ask.ts";
import { put, uploadImage, uploadTicket } from "./upload-image.ts";

let relay: RelayProcess;
let ada: Person;
let adaAgent: Agent;
let bo: Person;
let boAgent: Agent;

beforeAll(async () => {
  relay = await new RelayProcess().start();
  ada = new Person(relay.url, await relay.token("ada", { space: "alpha" }));
  adaAgent = await Agent.connect(relay.url, await relay.token("ada", { space: "alpha", agent: true }));
  bo = new Person(relay.url, await relay.token("bo", { space: "beta" }));
  boAgent = await Agent.connect(relay.url, await relay.token("bo", { space: "beta", agent: true }));
});
afterAll(async () => {
  await adaAgent.close();
  await boAgent.close();
  await relay.dispose();
  assertNoInternalErrors(relay.log);
});

test("another space's ask is as absent as one that never existed", async () => {
  const { ask, call } = await question(ada, adaAgent);
  const read = await bo.api("GET", `/asks/${ask.id}`);
  expect([read.status, read.body.code]).toEqual([404, "ask.not_found"]);
  const reply = await bo.api("POST", `/asks/${ask.id}/reply`, { body: { outcome: "answered", selected: ["A"] } });
  expect([reply.status, reply.body.code]).toEqual([404, "ask.not_found"]);
  expect((await bo.snapshot()).open.map((a) => a.id)).not.toContain(ask.id);

  expect(refusal(await boAgent.call("wait_for_reply", { askId: ask.id }))).toBe("ask.not_found");
  expect(refusal(await boAgent.call("answer_follow_up", { askId: ask.id, answer: "Mine now." }))).toBe("ask.not_found");

  await ada.reply(ask.id, { outcome: "answered", selected: ["A"] });
  await call;
  const bosView = await bo.snapshot();
  expect([...bosView.open, ...bosView.recent].map((a) => a.id)).not.toContain(ask.id);
  expect((await bo.api("GET", "/asks")).body.items.map((a: any) => a.id)).not.toContain(ask.id);
  expect((await ada.api("GET", `/asks/${ask.id}`)).body.thread).toHaveLength(1);
});

test("a review cannot revise another space's review", async () => {
  const theirs = await review(ada, adaAgent);
  const res = await boAgent.call("request_review", { title: "Mine", content: [{ type: "markdown", text: "x" }], project: "p", revises: theirs.ask.id });
  expect(refusal(res)).toBe("ask.revises_unknown");
  await ada.reply(theirs.ask.id, { outcome: "approved" });
  await theirs.call;
});

test("a space's socket hears nothing of another space's asks", async () => {
  const bosSocket = await bo.socket();
  expect((await bosSocket.next()).type).toBe("snapshot");
  const adas = await question(ada, adaAgent);
  await ada.reply(adas.ask.id, { outcome: "dismissed" });
  await adas.call;
  const bos = await question(bo, boAgent);
  await bo.reply(bos.ask.id, { outcome: "dismissed" });
  await bos.call;
  // Bo's own ask is seen opening and closing; by then Ada's frames would have arrived before them.
  await bosSocket.next((f) => f.type !== "snapshot" && f.ask.id === bos.ask.id && f.ask.status === "closed" && !f.ask.waiting);
  const heard = [...bosSocket.frames].map((f) => (f as AskEvent).ask.id);
  expect(heard).not.toContain(adas.ask.id);
  bosSocket.close();
});

test("another space's image can be neither fetched nor shown in a review", async () => {
  const uploadId = await uploadImage(adaAgent);
  expect((await ada.api("GET", `/files/${uploadId}`)).status).toBe(200);
  const read = await bo.api("GET", `/files/${uploadId}`);
  expect([read.status, read.body.code]).toEqual([404, "file.not_found"]);

  const content = [{ type: "image" as const, uploadId }];
  expect(refusal(await boAgent.call("request_review", { title: "Borrowed", content, project: "p" }))).toBe("image.unknown_upload");
  expect(
    refusal(await boAgent.call("send_briefing", { title: "Borrowed", sections: [{ points: [{ title: "Look", content }] }], project: "p" })),
  ).toBe("image.unknown_upload");
  const own = await review(ada, adaAgent, { content });
  expect(own.ask.kind === "review" && own.ask.prompt.content).toEqual(content);
  await ada.reply(own.ask.id, { outcome: "approved" });
  await own.call;
});

test("an upload ticket works only under the space it was issued for", async () => {
  const adas = new URL((await uploadTicket(adaAgent)).uploadUrl);
  const bos = new URL((await uploadTicket(boAgent)).uploadUrl);
  const [, , , , adaSpace, adaToken] = adas.pathname.split("/");
  const [, , , , boSpace] = bos.pathname.split("/");
  expect(adaSpace).not.toBe(boSpace);
  const crossed = await put(`${relay.url}/api/v1/uploads/${boSpace}/${adaToken}`, new Uint8Array(8));
  expect([crossed.status, crossed.body.code]).toEqual([404, "upload.not_found"]);
});
