// A review answered with comments on lines and blocks reaches the agent as structured comments, and
// anchors that do not fit the review are refused with the problem table's codes, nothing stored.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Reply, ReviewComment } from "@loopback/shared/generated/types";
import { newProject, openedAsk, readAsk, running, scene, toolReply, type Scene } from "./mcp-scene.ts";

let s: Scene;
beforeAll(async () => {
  s = await scene();
});
afterAll(() => s.dispose());

const DIFF = ["--- a/src/cache.ts", "+++ b/src/cache.ts", "@@ -1,3 +1,3 @@", " import { render } from './render';", "-export const TTL = 60;", "+export const TTL_MS = 60_000;", " export const SIZE = 100;", ""].join("\n");

const input = (project: string) => ({
  title: "Cache rendered pages",
  content: [
    { type: "markdown", text: "The cache sits in front of the renderer." },
    { type: "code", code: "const a = 1;\nconst b = 2;", language: "ts", filename: "keys.ts" },
    { type: "diff", diff: DIFF },
  ],
  project,
});

async function openReview() {
  const project = newProject();
  const call = running(s.agent.call("request_review", input(project)));
  const ask = await openedAsk(s.person, project, call);
  return { ask, call };
}

// The person's client writes revision 3, as this inbox does.
const person = () => s.person.reading("3");

test("changes requested with comments on both sides of a diff, a code line and a markdown block return to the agent structured", async () => {
  const { ask, call } = await openReview();
  const comments: ReviewComment[] = [
    { block: 2, file: "src/cache.ts", side: "old", line: 2, body: "Seconds were wrong, good." },
    { block: 2, file: "src/cache.ts", side: "new", line: 2, body: "Name the unit in a comment too." },
    { block: 1, line: 2, body: "`b` says nothing." },
    { block: 0, body: "Say **why** it sits there." },
  ];
  const res = await person().reply(ask.id, { outcome: "changes_requested", comments });
  expect(res.status).toBe(200);
  const reply = toolReply(await call).reply;
  expect(reply).toEqual({ outcome: "changes_requested", comments });
  const stored = await person().api("GET", `/asks/${ask.id}`);
  expect(stored.body.thread[0].reply).toEqual({ outcome: "changes_requested", comments });
});

test("an approval with a comment and a note returns both", async () => {
  const { ask, call } = await openReview();
  const reply: Reply = { outcome: "approved", note: "Ship it.", comments: [{ block: 1, line: 1, body: "Nice name." }] };
  expect((await person().reply(ask.id, reply)).status).toBe(200);
  expect(toolReply(await call).reply).toEqual(reply);
});

test("the agent is told what to do with comments: address each, then revise", async () => {
  const { tools } = await s.agent.client.listTools();
  const words = tools.find((t) => t.name === "request_review")!.description!;
  expect(words).toContain("`comments`");
  expect(words).toContain("address every comment");
  expect(words).toContain("`revises`");
});

test("comments whose anchors do not fit the review are refused with their own codes, and the ask stays the person's", async () => {
  const { ask, call } = await openReview();
  const refusals: [ReviewComment, number, string][] = [
    [{ block: 2, file: "src/cache.ts", side: "new", line: 4, body: "x" }, 422, "comment.unknown_line"],
    [{ block: 2, file: "src/cache.ts", side: "old", line: 0, body: "x" }, 422, "body.invalid"],
    [{ block: 2, file: "src/other.ts", side: "new", line: 1, body: "x" }, 422, "comment.unknown_file"],
    [{ block: 2, line: 1, body: "x" }, 422, "comment.misplaced"],
    [{ block: 1, line: 3, body: "x" }, 422, "comment.unknown_line"],
    [{ block: 0, line: 1, body: "x" }, 422, "comment.misplaced"],
    [{ block: 3, body: "x" }, 422, "comment.unknown_block"],
    [{ block: 0, body: " " }, 422, "reply.empty"],
  ];
  for (const [comment, status, code] of refusals) {
    const res = await person().api("POST", `/asks/${ask.id}/reply`, { body: { outcome: "changes_requested", feedback: "See the comments.", comments: [comment] } });
    expect([JSON.stringify(comment), res.status, res.body.code]).toEqual([JSON.stringify(comment), status, code]);
  }
  const after = await readAsk(s.person, ask.id);
  expect([after.status, after.thread.length, call.settled]).toEqual(["awaiting_human", 0, false]);
  expect((await person().reply(ask.id, { outcome: "dismissed" })).status).toBe(200);
  await call;
});
