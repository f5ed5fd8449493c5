import { describe, expect, test } from "bun:test";
import type { AskKind, BriefingInput, QuestionInput, ReviewInput } from "../generated/types.ts";
import type { ProblemCode } from "../problems.ts";
import { type AskInputs, checkOpen, openAsk } from "./open-ask.ts";
import { at, codeOf, codeThrownBy } from "../testing/sample-asks.ts";

const meta = { id: "a1", at: at(0) };
const question: QuestionInput = { question: "Ship on Friday?", project: "loopback" };
const review: ReviewInput = { title: "Release notes", content: [{ type: "markdown", text: "# 1.2" }], project: "loopback" };
const briefing: BriefingInput = { title: "Findings", sections: [{ points: [{ title: "One" }] }, { title: "More", points: [{ title: "Two" }] }], project: "loopback" };

describe("openAsk", () => {
  test("a new ask is the person's move, with nobody following and nothing said", () => {
    for (const [kind, input] of [["question", question], ["review", review], ["briefing", briefing]] as const) {
      expect(openAsk(kind, input, meta)).toMatchObject({ kind, id: "a1", status: "awaiting_human", waiting: false, project: "loopback", thread: [], createdAt: at(0), updatedAt: at(0) });
      expect(openAsk(kind, input, meta)).not.toHaveProperty("closedAt");
    }
  });

  test("a question without choices offers none, and one choice at most", () => {
    expect(openAsk("question", question, meta).prompt).toStrictEqual({ question: "Ship on Friday?", options: [], multiple: false });
  });

  test("a question keeps its choices, whether several may be picked, and its context", () => {
    const options = [{ label: "Yes" }, { label: "No", description: "Wait a week." }];
    expect(openAsk("question", { ...question, options, multiple: true, context: "The freeze starts Monday." }, meta).prompt).toStrictEqual({
      question: "Ship on Friday?",
      options,
      multiple: true,
      context: "The freeze starts Monday.",
    });
  });

  test("a review shows its title, content and summary, and names the review it revises beside them", () => {
    const ask = openAsk("review", { ...review, summary: "Shorter now.", revises: "r0" }, meta);
    expect(ask.prompt).toStrictEqual({ title: "Release notes", content: review.content, summary: "Shorter now." });
    expect(ask.revises).toBe("r0");
  });

  test("a review that revises nothing says nothing about it", () => expect(openAsk("review", review, meta)).not.toHaveProperty("revises"));

  test("a briefing's points are numbered", () => {
    expect(openAsk("briefing", briefing, meta).prompt).toStrictEqual({
      title: "Findings",
      sections: [{ points: [{ id: "1", title: "One" }] }, { title: "More", points: [{ id: "2", title: "Two" }] }],
    });
  });

  test("who asked and through which client are kept when known", () => {
    const ask = openAsk("question", question, { ...meta, client: "claude-code 2.1.0", raisedBy: { id: "u_ada", name: "Ada" } });
    expect(ask).toMatchObject({ client: "claude-code 2.1.0", raisedBy: { id: "u_ada", name: "Ada" } });
  });

  test("who asked and through which client are left out when unknown", () => {
    const ask = openAsk("question", question, meta);
    expect(ask).not.toHaveProperty("client");
    expect(ask).not.toHaveProperty("raisedBy");
  });

  test("input checkOpen refuses is thrown, not opened", () => {
    expect(codeThrownBy(() => openAsk("briefing", { ...briefing, sections: [{ points: Array.from({ length: 51 }, () => ({ title: "A point" })) }] }, meta))).toBe(
      "briefing.too_many_points",
    );
  });
});

describe("checkOpen", () => {
  const big = "x".repeat(256 * 1024);
  const fiftyOne = { ...briefing, sections: [{ points: Array.from({ length: 51 }, () => ({ title: "A point" })) }] };
  const cases: [string, AskKind, AskInputs[AskKind], ProblemCode | null][] = [
    ["a question of ordinary size opens", "question", question, null],
    ["a review of ordinary size opens", "review", review, null],
    ["a briefing of fifty points or fewer opens", "briefing", briefing, null],
    ["a question larger than 256 KiB is refused", "question", { ...question, context: big }, "input.too_large"],
    ["a review larger than 256 KiB is refused", "review", { ...review, content: [{ type: "code", code: big }] }, "input.too_large"],
    ["a briefing larger than 256 KiB is refused", "briefing", { ...briefing, summary: big }, "input.too_large"],
    ["a briefing of more than fifty points is refused", "briefing", fiftyOne, "briefing.too_many_points"],
  ];
  for (const [behaviour, kind, input, refusal] of cases) test(behaviour, () => expect(codeOf(checkOpen(kind, input))).toBe(refusal));
});
