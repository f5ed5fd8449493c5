// The generated valibot schemas hold every constraint the contract declares: sealed objects,
// discriminated variants, lengths and item counts.
import type { Ask } from "./generated/types.ts";
import { summarize } from "./ask-rules/summarize.ts";
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import Ajv from "ajv";
import * as s from "./generated/schemas.ts";
import { toolJsonSchemas } from "./generated/tool-schemas.ts";

const ok = (schema: v.GenericSchema, value: unknown) => v.safeParse(schema, value).success;

const question = { question: "Which database?", project: "loopback", options: [{ label: "SQLite" }, { label: "Postgres", description: "needs a server" }], multiple: false, context: "We ship one binary." };
const review = {
  title: "Add the uploads table",
  project: "loopback",
  summary: "One migration.",
  revises: "ask_123",
  content: [
    { type: "markdown", text: "**Look** at the index." },
    { type: "code", code: "select 1;", language: "sql", filename: "q.sql" },
    { type: "diff", diff: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", filename: "x" },
    { type: "image", uploadId: "upl_1", caption: "before" },
  ],
};
const briefing = { title: "Findings", project: "loopback", summary: "Three things.", sections: [{ title: "Bugs", points: [{ title: "A race", detail: "In claim()", content: [{ type: "code", code: "x" }] }] }, { points: [{ title: "A leak" }] }] };
const at = "2026-11-29T12:00:00.000Z";
const ask = { kind: "question", prompt: { question: "Which?", options: [], multiple: false }, id: "ask_1", status: "closed", waiting: false, project: "p", client: "claude-code 2.1.0", raisedBy: { id: "psn_1", name: "Ada" }, thread: [{ author: "human", reply: { outcome: "answered", selected: [], text: "SQLite" }, by: { id: "psn_1" }, at }], createdAt: at, updatedAt: at, closedAt: at };

describe("the contract's example bodies are accepted", () => {
  test.each([
    ["QuestionInput", s.QuestionInput, question],
    ["ReviewInput", s.ReviewInput, review],
    ["BriefingInput", s.BriefingInput, briefing],
    ["BriefingAnswerInput", s.BriefingAnswerInput, { askId: "ask_1", answers: [{ point: "1", answer: "Fixed.", points: [{ title: "Also this" }] }] }],
    ["FollowUpInput", s.FollowUpInput, { askId: "ask_1", answer: "Because.", content: [{ type: "markdown", text: "x" }] }],
    ["UploadRequest", s.UploadRequest, { contentType: "image/webp" }],
    ["InboxRequest", s.InboxRequest, {}],
    ["WaitInput", s.WaitInput, { askId: "ask_1" }],
    ["Reply answered", s.Reply, { outcome: "answered", selected: ["SQLite"], text: "and fast" }],
    ["Reply approved", s.Reply, { outcome: "approved", note: "ship it" }],
    ["Reply changes_requested", s.Reply, { outcome: "changes_requested", feedback: "rename it" }],
    ["Reply changes_requested with comments and no feedback", s.Reply, { outcome: "changes_requested", comments: [{ block: 2, file: "x", side: "old", line: 1, body: "why?" }, { block: 1, line: 1, body: "ok" }, { block: 0, body: "and this" }] }],
    ["Reply approved with a comment", s.Reply, { outcome: "approved", comments: [{ block: 0, body: "nice" }] }],
    ["Reply follow_up", s.Reply, { outcome: "follow_up", question: "why?" }],
    ["Reply dismissed", s.Reply, { outcome: "dismissed" }],
    ["Reply responded", s.Reply, { outcome: "responded", points: [{ point: "1", text: "why?" }, { point: "2", resolved: true }] }],
    ["Ask", s.Ask, ask],
    ["ServerEvent snapshot", s.ServerEvent, { type: "snapshot", snapshot: { open: [], recent: [summarize(ask as Ask)], whole: [] } }],
    ["ServerEvent ask.updated", s.ServerEvent, { type: "ask.updated", ask }],
    ["ToolReply with reply", s.ToolReply, { askId: "ask_1", reply: { outcome: "dismissed" } }],
    ["ToolReply pending", s.ToolReply, { askId: "ask_1", pending: { waitedSeconds: 50, message: "call wait_for_reply" } }],
    ["UploadTicket", s.UploadTicket, { uploadId: "upl_1", uploadUrl: "http://x/u", expiresAt: at, maxBytes: 1024, command: "curl" }],
    ["Problem", s.Problem, { code: "ask.closed", message: "closed" }],
  ])("%s", (_name, schema, value) => {
    expect(ok(schema as v.GenericSchema, value)).toBe(true);
  });
});

describe("bodies the contract forbids are refused", () => {
  const choices = (n: number) => Array.from({ length: n }, (_, i) => ({ label: `choice ${i}` }));
  test.each([
    ["an unknown key on an input", s.QuestionInput, { ...question, urgent: true }],
    ["an unknown key inside a nested choice", s.QuestionInput, { ...question, options: [{ label: "a", colour: "red" }, { label: "b" }] }],
    ["an unknown key on a reply", s.Reply, { outcome: "dismissed", reason: "busy" }],
    ["a question with one choice", s.QuestionInput, { ...question, options: choices(1) }],
    ["a question with seven choices", s.QuestionInput, { ...question, options: choices(7) }],
    ["a choice label over 80 characters", s.QuestionInput, { ...question, options: [{ label: "x".repeat(81) }, { label: "b" }] }],
    ["an empty feedback", s.Reply, { outcome: "changes_requested", feedback: "" }],
    ["a 201-character review title", s.ReviewInput, { ...review, title: "x".repeat(201) }],
    ["a 201-character point title", s.BriefingInput, { ...briefing, sections: [{ points: [{ title: "x".repeat(201) }] }] }],
    ["a comment with no words", s.Reply, { outcome: "changes_requested", comments: [{ block: 0, body: "" }] }],
    ["a comment on a negative block", s.Reply, { outcome: "changes_requested", comments: [{ block: -1, body: "x" }] }],
    ["a comment on line 0", s.Reply, { outcome: "changes_requested", comments: [{ block: 0, line: 0, body: "x" }] }],
    ["a comment on a fractional line", s.Reply, { outcome: "changes_requested", comments: [{ block: 0, line: 1.5, body: "x" }] }],
    ["a comment on a side that does not exist", s.Reply, { outcome: "changes_requested", comments: [{ block: 0, side: "left", line: 1, body: "x" }] }],
    ["a comment with an unknown key", s.Reply, { outcome: "changes_requested", comments: [{ block: 0, body: "x", resolved: true }] }],
    ["a comment of over 20,000 characters", s.Reply, { outcome: "changes_requested", comments: [{ block: 0, body: "x".repeat(20_001) }] }],
    ["a hundred and one comments", s.Reply, { outcome: "changes_requested", comments: Array.from({ length: 101 }, () => ({ block: 0, body: "x" })) }],
    ["an outcome that does not exist", s.Reply, { outcome: "maybe" }],
    ["a block type that does not exist", s.ReviewInput, { ...review, content: [{ type: "video", url: "x" }] }],
    ["a block of one type with another's fields", s.ReviewInput, { ...review, content: [{ type: "code", text: "x" }] }],
    ["a review with no content", s.ReviewInput, { ...review, content: [] }],
    ["a briefing section with no points", s.BriefingInput, { ...briefing, sections: [{ points: [] }] }],
    ["a missing project", s.QuestionInput, { question: "x" }],
    ["an empty project", s.QuestionInput, { ...question, project: "" }],
    ["an image type not offered", s.UploadRequest, { contentType: "image/svg+xml" }],
    ["a date that is not a date-time", s.Ask, { ...ask, createdAt: "yesterday" }],
    ["an ask of an unknown kind", s.Ask, { ...ask, kind: "poll" }],
    ["an event of an unknown type", s.ServerEvent, { type: "ask.deleted", ask }],
    ["a thread entry by an unknown author", s.Ask, { ...ask, thread: [{ author: "robot", answer: "x", at }] }],
  ])("%s", (_name, schema, value) => {
    expect(ok(schema as v.GenericSchema, value)).toBe(false);
  });
});

describe("the tools' JSON Schemas", () => {
  // The SDK client checks tool outputs with draft-07 Ajv; clients check inputs with whatever they have.
  const ajv = new Ajv({ strict: false });

  test("are self-contained: no $ref for clients that cannot follow one", () => {
    expect(JSON.stringify(toolJsonSchemas)).not.toContain("$ref");
  });

  test("accept what the contract accepts and refuse unknown keys and counts, as a draft-07 validator reads them", () => {
    const input = ajv.compile(toolJsonSchemas.QuestionInput);
    expect(input(question)).toBe(true);
    expect(input({ ...question, urgent: true })).toBe(false);
    expect(input({ ...question, options: [{ label: "only one" }] })).toBe(false);
    const output = ajv.compile(toolJsonSchemas.ToolReply);
    expect(output({ askId: "ask_1", reply: { outcome: "answered", selected: ["a"] } })).toBe(true);
    expect(output({ askId: "ask_1", pending: { waitedSeconds: 1, message: "wait" } })).toBe(true);
    expect(output({ askId: "ask_1", reply: { outcome: "answered", selected: ["a"], extra: 1 } })).toBe(false);
  });
});
