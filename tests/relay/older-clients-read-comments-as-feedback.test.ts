// A reply with line comments, read by a client that names revision 1 or 2 (or names none, as revision
// 1's clients do), comes back in that revision's shape: the comments folded into `feedback` or `note`
// text that says where each one is. Every answer is checked against the frozen revision it names.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Ask, ReviewAsk, ReviewComment } from "@loopback/shared/generated/types";
import { scene, type Scene } from "../support/scene.ts";
import { review } from "./open-ask.ts";

let s: Scene;
beforeAll(async () => {
  s = await scene();
});
afterAll(() => s.dispose());

const content = [
  { type: "markdown", text: "The plan." },
  { type: "code", code: "a\nb\nc", filename: "q.sql" },
  { type: "diff", diff: "--- a/src/x.ts\n+++ b/src/x.ts\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n" },
];
const comments: ReviewComment[] = [
  { block: 2, file: "src/x.ts", side: "new", line: 2, body: "Name it for what it holds." },
  { block: 2, file: "src/x.ts", side: "old", line: 2, body: "Why did this go?" },
  { block: 1, line: 3, body: "Add an index." },
  { block: 0, body: "Say why." },
];
const FOLDED = [
  "Comments on the review:",
  "- src/x.ts, new line 2 (block 3): Name it for what it holds.",
  "- src/x.ts, old line 2 (block 3): Why did this go?",
  "- q.sql, line 3 (block 2): Add an index.",
  "- block 1 (markdown): Say why.",
].join("\n");

const lastReply = (ask: Ask) => (ask.thread.at(-1)! as Extract<Ask["thread"][number], { author: "human" }>).reply;

test("changes requested with comments only read as feedback text by revisions 1 and 2, and as comments by revision 3", async () => {
  const { ask, call } = await review(s.person, s.agent, { content });
  const sent = await s.person.reading("3").reply(ask.id, { outcome: "changes_requested", comments });
  expect(lastReply(sent.body)).toEqual({ outcome: "changes_requested", comments });
  await call;
  for (const older of [s.person, s.person.reading("1"), s.person.reading("2")]) {
    // Person.api checks each answer against the frozen revision the client names (1 when none).
    const read = await older.api<ReviewAsk>("GET", `/asks/${ask.id}`);
    expect([older.revision, lastReply(read.body)]).toEqual([older.revision, { outcome: "changes_requested", feedback: FOLDED }]);
    const snapshot = await older.snapshot();
    expect(lastReply(snapshot.recent.find((a) => a.id === ask.id)!)).toEqual({ outcome: "changes_requested", feedback: FOLDED });
    const page = await older.api("GET", "/asks?limit=100");
    expect(lastReply(page.body.items.find((a: Ask) => a.id === ask.id))).toEqual({ outcome: "changes_requested", feedback: FOLDED });
  }
  expect(lastReply((await s.person.reading("3").api("GET", `/asks/${ask.id}`)).body)).toEqual({ outcome: "changes_requested", comments });
});

test("the overall feedback or note stays first, the comments after it", async () => {
  const { ask, call } = await review(s.person, s.agent, { content });
  await s.person.reading("3").reply(ask.id, { outcome: "approved", note: "Fine by me.", comments: [comments[2]] });
  await call;
  const read = await s.person.reading("2").api("GET", `/asks/${ask.id}`);
  expect(lastReply(read.body)).toEqual({ outcome: "approved", note: "Fine by me.\n\nComments on the review:\n- q.sql, line 3 (block 2): Add an index." });
});

test("a revision-1 or revision-2 client replying as it always did is answered in its own shape", async () => {
  for (const older of [s.person, s.person.reading("2")]) {
    const { ask, call } = await review(s.person, s.agent);
    const res = await older.reply(ask.id, { outcome: "changes_requested", feedback: "Shorter." });
    expect([res.status, lastReply(res.body)]).toEqual([200, { outcome: "changes_requested", feedback: "Shorter." }]);
    await call;
  }
});

test("the reply's own answer and the event socket speak the client's revision too", async () => {
  const older = await s.person.reading("2").socket();
  const newer = await s.person.reading("3").socket();
  try {
    const { ask, call } = await review(s.person, s.agent, { content });
    // Its answer is checked against revision 2 by Person.api.
    const res = await s.person.reading("2").reply(ask.id, { outcome: "changes_requested", feedback: "Overall.", comments: [comments[0]] });
    expect(lastReply(res.body)).toEqual({ outcome: "changes_requested", feedback: `Overall.\n\n${FOLDED.split("\n").slice(0, 2).join("\n")}` });
    await call;
    const closed = (f: any) => f.type === "ask.updated" && f.ask.id === ask.id && f.ask.status === "closed";
    expect(lastReply(((await older.next(closed)) as any).ask)).toEqual(lastReply(res.body));
    expect(lastReply(((await newer.next(closed)) as any).ask)).toEqual({ outcome: "changes_requested", feedback: "Overall.", comments: [comments[0]] });
    // A fresh socket's snapshot is downgraded as well (frames are checked against revision 2).
    const again = await s.person.reading("2").socket();
    const first = (await again.next((f) => f.type === "snapshot")) as any;
    expect(lastReply(first.snapshot.recent.find((a: Ask) => a.id === ask.id))).toEqual(lastReply(res.body));
    again.close();
  } finally {
    older.close();
    newer.close();
  }
});
