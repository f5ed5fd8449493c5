import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ProblemCode } from "@loopback/shared/problems";
import { REVISION } from "@loopback/shared/generated/revision";
import { assertShape } from "../support/contract.ts";
import {
  Agent,
  Person,
  askWhen,
  briefingInput,
  expectRefusal,
  newProject,
  openedAsk,
  questionInput,
  readAsk,
  reviewInput,
  running,
  scene,
  toolReply,
  uploadPng,
  type Scene,
} from "./mcp-scene.ts";

const HUGE = "x".repeat(300 * 1024);

let s: Scene;
/** Someone in another space, whose asks and uploads are as absent to ada's agent as unknown ones. */
let other: { person: Person; agent: Agent; askId: string; uploadId: string };

beforeAll(async () => {
  s = await scene();
  const person = new Person(s.relay.url, await s.relay.token("bob", { space: "elsewhere" }));
  const agent = await Agent.connect(s.relay.url, await s.relay.token("bob", { space: "elsewhere", agent: true }));
  const project = newProject();
  const call = running(agent.call("request_review", reviewInput(project)));
  const askId = (await openedAsk(person, project, call)).id;
  other = { person, agent, askId, uploadId: await uploadPng(agent) };
});
afterAll(async () => {
  await other.agent.close();
  await s.dispose();
});

/** Calls a tool, expects the refusal `code`, and checks that the person's inbox did not change. */
async function refuses(tool: string, args: Record<string, unknown>, code: ProblemCode): Promise<string> {
  const before = await s.person.snapshot();
  const text = expectRefusal(await s.agent.call(tool, args), code);
  expect(await s.person.snapshot()).toEqual(before);
  return text;
}

/** A briefing whose points 1 and 3 the person wrote on and point 2 they resolved: the agent's move. */
async function briefingOnAgentsMove() {
  const project = newProject();
  const call = running(s.agent.call("send_briefing", briefingInput(project)));
  const ask = await openedAsk(s.person, project, call);
  const reply = { outcome: "responded", points: [{ point: "1", text: "Why per request?" }, { point: "2", resolved: true }, { point: "3", text: "How cold?" }] };
  expect((await s.person.reply(ask.id, reply)).status).toBe(200);
  expect(toolReply(await call).reply).toEqual(reply as any);
  return ask.id;
}

describe("ask_question", () => {
  test("refuses input of the wrong shape", async () => {
    const project = newProject();
    expect(await refuses("ask_question", { question: "Which?" }, "input.invalid")).toContain("project");
    await refuses("ask_question", { question: 42, project }, "input.invalid");
    await refuses("ask_question", { question: "", project }, "input.invalid");
    await refuses("ask_question", { ...questionInput(project), multiple: "yes" }, "input.invalid");
    await refuses("ask_question", { ...questionInput(project), urgent: true }, "input.invalid");
    await refuses("ask_question", questionInput(project, { options: [{ label: "x".repeat(81) }, { label: "B" }] }), "input.invalid");
  });

  test("refuses one choice, or seven", async () => {
    const project = newProject();
    expect(await refuses("ask_question", questionInput(project, { options: [{ label: "Only" }] }), "input.invalid")).toContain("options");
    const seven = Array.from({ length: 7 }, (_, i) => ({ label: `Choice ${i + 1}` }));
    expect(await refuses("ask_question", questionInput(project, { options: seven }), "input.invalid")).toContain("options");
  });

  test("refuses more than 256 KiB", async () => {
    await refuses("ask_question", questionInput(newProject(), { context: HUGE }), "input.too_large");
  });

  test("refuses a request too large to read with 413 and the same words, as a transport error", async () => {
    const before = await s.person.snapshot();
    const call = s.agent.call("ask_question", questionInput(newProject(), { context: "x".repeat(2 * 1024 * 1024) }));
    const error = await call.then(
      () => undefined,
      (e) => e,
    );
    expect([error?.code, error?.message]).toEqual([413, expect.stringContaining(`"code":"input.too_large"`)]);
    expect(await s.person.snapshot()).toEqual(before);
    // The session is still there for the next call.
    expect((await s.agent.call("get_inbox_link", {})).isError).toBeFalsy();
  });
});

describe("request_review", () => {
  test("refuses input of the wrong shape", async () => {
    const project = newProject();
    await refuses("request_review", reviewInput(project, { content: [] }), "input.invalid");
    await refuses("request_review", reviewInput(project, { content: [{ type: "video", url: "x" }] }), "input.invalid");
    await refuses("request_review", reviewInput(project, { title: "t".repeat(201) }), "input.invalid");
  });

  test("refuses more than 256 KiB", async () => {
    await refuses("request_review", reviewInput(newProject(), { content: [{ type: "code", code: HUGE }] }), "input.too_large");
  });

  test("refuses an image that was never uploaded, or was uploaded in another space", async () => {
    const project = newProject();
    const missing = await refuses("request_review", reviewInput(project, { content: [{ type: "image", uploadId: "upl_nothing" }] }), "image.unknown_upload");
    expect(missing).toContain("upl_nothing");
    await refuses("request_review", reviewInput(project, { content: [{ type: "image", uploadId: other.uploadId }] }), "image.unknown_upload");
    // A ticket issued but never used is no image either.
    const ticket = (await s.agent.call("get_upload_ticket", { contentType: "image/png" })).structuredContent as { uploadId: string };
    await refuses("request_review", reviewInput(project, { content: [{ type: "image", uploadId: ticket.uploadId }] }), "image.unknown_upload");
  });

  test("refuses `revises` naming no review of this space", async () => {
    const project = newProject();
    await refuses("request_review", reviewInput(project, { revises: "ask_nothing" }), "ask.revises_unknown");
    await refuses("request_review", reviewInput(project, { revises: other.askId }), "ask.revises_unknown");
    const q = newProject();
    const call = running(s.agent.call("ask_question", questionInput(q)));
    const question = await openedAsk(s.person, q, call);
    await refuses("request_review", reviewInput(project, { revises: question.id }), "ask.revises_unknown");
    await s.person.reply(question.id, { outcome: "dismissed" });
    await call;
  });
});

describe("send_briefing", () => {
  test("refuses input of the wrong shape", async () => {
    const project = newProject();
    await refuses("send_briefing", briefingInput(project, { sections: [] }), "input.invalid");
    await refuses("send_briefing", briefingInput(project, { sections: [{ points: [] }] }), "input.invalid");
    await refuses("send_briefing", briefingInput(project, { sections: [{ points: [{ title: "t".repeat(201) }] }] }), "input.invalid");
  });

  test("refuses more than fifty points, counted through every section", async () => {
    const points = (n: number) => Array.from({ length: n }, (_, i) => ({ title: `Point ${i + 1}` }));
    const text = await refuses("send_briefing", briefingInput(newProject(), { sections: [{ points: points(30) }, { points: points(21) }] }), "briefing.too_many_points");
    expect(text).toContain("51");
  });

  test("refuses more than 256 KiB, and images that are not uploads of this space", async () => {
    const project = newProject();
    await refuses("send_briefing", briefingInput(project, { summary: HUGE }), "input.too_large");
    const withImage = (uploadId: string) => briefingInput(project, { sections: [{ points: [{ title: "Look", content: [{ type: "image", uploadId }] }] }] });
    await refuses("send_briefing", withImage("upl_nothing"), "image.unknown_upload");
    await refuses("send_briefing", withImage(other.uploadId), "image.unknown_upload");
  });
});

describe("answer_briefing", () => {
  test("refuses answers while it is the person's move, and on a closed briefing", async () => {
    const project = newProject();
    const call = running(s.agent.call("send_briefing", briefingInput(project)));
    const ask = await openedAsk(s.person, project, call);
    await refuses("answer_briefing", { askId: ask.id, answers: [{ point: "1", answer: "Because." }] }, "ask.not_your_turn");
    await s.person.reply(ask.id, { outcome: "responded", points: ["1", "2", "3"].map((point) => ({ point, resolved: true })) });
    expect(toolReply(await call).reply?.outcome).toBe("responded");
    await refuses("answer_briefing", { askId: ask.id, answers: [{ point: "1", answer: "Because." }] }, "ask.closed");
  });

  test("refuses an answer for a point that does not exist, twice, or on a resolved point", async () => {
    const askId = await briefingOnAgentsMove();
    const ok = [
      { point: "1", answer: "It was simpler." },
      { point: "3", answer: "Very." },
    ];
    expect(await refuses("answer_briefing", { askId, answers: [...ok, { point: "9", answer: "?" }] }, "answer.unknown_point")).toContain("9");
    await refuses("answer_briefing", { askId, answers: [...ok, { point: "1.1", answer: "?" }] }, "answer.unknown_point");
    await refuses("answer_briefing", { askId, answers: [...ok, { point: "1", answer: "Again." }] }, "answer.point_twice");
    await refuses("answer_briefing", { askId, answers: [...ok, { point: "2", answer: "Done already." }] }, "answer.point_resolved");
    const thread = (await readAsk(s.person, askId)).thread;
    expect(thread).toHaveLength(1);
  });

  test("refuses answers that leave out a point the person wrote on", async () => {
    const askId = await briefingOnAgentsMove();
    const text = await refuses("answer_briefing", { askId, answers: [{ point: "1", answer: "It was simpler." }] }, "answer.missing_point");
    expect(text).toContain("Still to answer: 3.");
  });

  test("refuses sub-points below the third level", async () => {
    const askId = await briefingOnAgentsMove();
    let call = running(
      s.agent.call("answer_briefing", {
        askId,
        answers: [
          { point: "1", answer: "Two reasons.", points: [{ title: "Simplicity" }] },
          { point: "3", answer: "Very.", points: [{ title: "Measured" }] },
        ],
      }),
    );
    await askWhen(s.person, askId, (a) => a.status === "awaiting_human");
    await s.person.reply(askId, { outcome: "responded", points: [{ point: "1.1", text: "Say more." }, { point: "3", resolved: true }] });
    expect(toolReply(await call).reply?.outcome).toBe("responded");
    call = running(s.agent.call("answer_briefing", { askId, answers: [{ point: "1.1", answer: "It reads well.", points: [{ title: "Fewer branches" }] }] }));
    await askWhen(s.person, askId, (a) => a.status === "awaiting_human");
    await s.person.reply(askId, { outcome: "responded", points: [{ point: "1.1.1", text: "Show me." }] });
    expect(toolReply(await call).reply?.outcome).toBe("responded");
    const text = await refuses("answer_briefing", { askId, answers: [{ point: "1.1.1", answer: "Here.", points: [{ title: "Too deep" }] }] }, "answer.too_deep");
    expect(text).toContain("1.1.1");
  });

  test("refuses the wrong shape, more than 256 KiB, images that are not uploads of this space, and asks it cannot see", async () => {
    const askId = await briefingOnAgentsMove();
    const answers = (extra: Record<string, unknown> = {}) => [{ point: "1", answer: "Simpler.", ...extra }, { point: "3", answer: "Very." }];
    await refuses("answer_briefing", { askId, answers: [] }, "input.invalid");
    await refuses("answer_briefing", { askId, answers: [{ point: "1" }] }, "input.invalid");
    await refuses("answer_briefing", { askId, answers: answers({ answer: HUGE }) }, "input.too_large");
    await refuses("answer_briefing", { askId, answers: answers({ content: [{ type: "image", uploadId: "upl_nothing" }] }) }, "image.unknown_upload");
    await refuses("answer_briefing", { askId, answers: answers({ points: [{ title: "See", content: [{ type: "image", uploadId: other.uploadId }] }] }) }, "image.unknown_upload");
    await refuses("answer_briefing", { askId: "ask_nothing", answers: answers() }, "ask.not_found");
    await refuses("answer_briefing", { askId: other.askId, answers: answers() }, "ask.not_found");
  });

  test("refuses answers on a question or a review", async () => {
    const project = newProject();
    const call = running(s.agent.call("ask_question", questionInput(project)));
    const ask = await openedAsk(s.person, project, call);
    await s.person.reply(ask.id, { outcome: "follow_up", question: "For how long?" });
    await call;
    await refuses("answer_briefing", { askId: ask.id, answers: [{ point: "1", answer: "A day." }] }, "answer.wrong_kind");
  });
});

describe("answer_follow_up", () => {
  test("refuses an answer while it is the person's move, on a closed ask, and when nothing was asked back", async () => {
    const project = newProject();
    const call = running(s.agent.call("ask_question", questionInput(project)));
    const ask = await openedAsk(s.person, project, call);
    await refuses("answer_follow_up", { askId: ask.id, answer: "Nobody asked." }, "ask.not_your_turn");
    await s.person.reply(ask.id, { outcome: "answered", selected: ["SQLite"] });
    await call;
    await refuses("answer_follow_up", { askId: ask.id, answer: "Too late." }, "ask.closed");

    const briefingId = await briefingOnAgentsMove();
    expect(await refuses("answer_follow_up", { askId: briefingId, answer: "Here." }, "answer.no_follow_up")).toContain("answer_briefing");
  });

  test("refuses the wrong shape, more than 256 KiB, images that are not uploads of this space, and asks it cannot see", async () => {
    const project = newProject();
    const call = running(s.agent.call("request_review", reviewInput(project)));
    const ask = await openedAsk(s.person, project, call);
    await s.person.reply(ask.id, { outcome: "follow_up", question: "Why a minute?" });
    expect(toolReply(await call).reply).toEqual({ outcome: "follow_up", question: "Why a minute?" });
    await refuses("answer_follow_up", { askId: ask.id, answer: "" }, "input.invalid");
    await refuses("answer_follow_up", { askId: ask.id }, "input.invalid");
    await refuses("answer_follow_up", { askId: ask.id, answer: HUGE }, "input.too_large");
    await refuses("answer_follow_up", { askId: ask.id, answer: "See.", content: [{ type: "image", uploadId: "upl_nothing" }] }, "image.unknown_upload");
    await refuses("answer_follow_up", { askId: ask.id, answer: "See.", content: [{ type: "image", uploadId: other.uploadId }] }, "image.unknown_upload");
    await refuses("answer_follow_up", { askId: "ask_nothing", answer: "Hm." }, "ask.not_found");
    await refuses("answer_follow_up", { askId: other.askId, answer: "Hm." }, "ask.not_found");
    expect((await readAsk(s.person, ask.id)).status).toBe("awaiting_agent");
  });
});

describe("wait_for_reply", () => {
  test("refuses the wrong shape, and asks it cannot see", async () => {
    await refuses("wait_for_reply", {}, "input.invalid");
    await refuses("wait_for_reply", { askId: "" }, "input.invalid");
    await refuses("wait_for_reply", { askId: "ask_nothing" }, "ask.not_found");
    await refuses("wait_for_reply", { askId: other.askId }, "ask.not_found");
  });
});

describe("get_upload_ticket", () => {
  test("gives a ticket that takes one image of its type", async () => {
    const result = await s.agent.call("get_upload_ticket", { contentType: "image/png" });
    assertShape(REVISION, "UploadTicket", result.structuredContent);
    const ticket = result.structuredContent as { uploadUrl: string; command: string; uploadId: string };
    expect(ticket.uploadUrl.startsWith(`${s.relay.url}/api/v1/uploads/`)).toBe(true);
    expect(ticket.command).toContain("FILE");
    expect(await uploadPng(s.agent)).toStartWith("upl");
  });

  test("refuses a type that is not an image it takes", async () => {
    await refuses("get_upload_ticket", { contentType: "image/bmp" }, "input.invalid");
    await refuses("get_upload_ticket", {}, "input.invalid");
  });
});

describe("get_inbox_link", () => {
  test("gives the inbox, or one ask in it", async () => {
    const inbox = (await s.agent.call("get_inbox_link", {})).structuredContent;
    assertShape(REVISION, "InboxLink", inbox);
    expect(inbox).toEqual({ url: `${s.relay.url}/inbox/` });
    const project = newProject();
    const call = running(s.agent.call("ask_question", questionInput(project)));
    const ask = await openedAsk(s.person, project, call);
    const link = (await s.agent.call("get_inbox_link", { askId: ask.id })).structuredContent;
    assertShape(REVISION, "InboxLink", link);
    expect(link).toEqual({ url: `${s.relay.url}/inbox/#/ask/${ask.id}` });
    await s.person.reply(ask.id, { outcome: "dismissed" });
    await call;
  });

  test("refuses an ask it cannot see", async () => {
    await refuses("get_inbox_link", { askId: "ask_nothing" }, "ask.not_found");
    await refuses("get_inbox_link", { askId: other.askId }, "ask.not_found");
    await refuses("get_inbox_link", { askId: 7 }, "input.invalid");
  });
});
