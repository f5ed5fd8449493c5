import { describe, expect, test } from "bun:test";
import type { BriefingInput, BriefingPoint } from "../generated/types.ts";
import { checkBriefingInput, MAX_BRIEFING_POINTS, numberBriefing } from "./number-briefing.ts";
import { codeOf, codeThrownBy } from "../testing/sample-asks.ts";

const points = (count: number): BriefingPoint[] => Array.from({ length: count }, (_, index) => ({ title: `Point ${index + 1}` }));
const briefingOf = (...sizes: number[]): BriefingInput => ({ title: "Findings", sections: sizes.map((size) => ({ points: points(size) })), project: "loopback" });

describe("numberBriefing", () => {
  test("points are numbered straight through every section, not per section", () => {
    const prompt = numberBriefing(briefingOf(2, 3, 1));
    expect(prompt.sections.map((section) => section.points.map((point) => point.id))).toEqual([["1", "2"], ["3", "4", "5"], ["6"]]);
  });

  test("titles, summary, section headings, details and content are kept as sent", () => {
    const content = [{ type: "code" as const, code: "SELECT 1", language: "sql" }];
    const prompt = numberBriefing({
      title: "Why the list is slow",
      summary: "Two causes.",
      sections: [{ title: "Findings", points: [{ title: "Cold cache", detail: "It empties on deploy.", content }] }, { points: [{ title: "Add the index" }] }],
      project: "loopback",
    });
    expect(prompt).toStrictEqual({
      title: "Why the list is slow",
      summary: "Two causes.",
      sections: [{ title: "Findings", points: [{ id: "1", title: "Cold cache", detail: "It empties on deploy.", content }] }, { points: [{ id: "2", title: "Add the index" }] }],
    });
  });

  test("the project is not part of the prompt", () => expect(numberBriefing(briefingOf(1))).not.toHaveProperty("project"));

  test("a briefing that is too long is thrown, not numbered", () => {
    expect(codeThrownBy(() => numberBriefing(briefingOf(51)))).toBe("briefing.too_many_points");
  });
});

describe("checkBriefingInput", () => {
  const cases: [string, BriefingInput, "briefing.too_many_points" | null][] = [
    ["one point is enough", briefingOf(1), null],
    ["fifty points in one section pass", briefingOf(50), null],
    ["fifty points across sections pass", briefingOf(20, 20, 10), null],
    ["fifty-one points in one section are refused", briefingOf(51), "briefing.too_many_points"],
    ["fifty-one points across sections are refused", briefingOf(25, 25, 1), "briefing.too_many_points"],
  ];
  for (const [behaviour, input, refusal] of cases) test(behaviour, () => expect(codeOf(checkBriefingInput(input))).toBe(refusal));

  test("the limit is fifty", () => expect(MAX_BRIEFING_POINTS).toBe(50));
  test("a refusal says how many points there were", () => expect(checkBriefingInput(briefingOf(30, 30))?.message).toContain("60"));
});
