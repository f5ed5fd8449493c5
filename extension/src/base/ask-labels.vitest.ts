import { describe, expect, it } from "vitest";
import { aQuestion, personReplies } from "../testing/asks";
import { closedLabel } from "./ask-labels";

describe("a closed ask's label", () => {
  it("says what was answered: the choices, else the first words", () => {
    const question = aQuestion();
    expect(closedLabel(personReplies(question, { outcome: "answered", selected: ["Yes"], text: "Before noon." }))).toBe("Answered: Yes");
    expect(closedLabel(personReplies(question, { outcome: "answered", selected: [], text: "x".repeat(50) }))).toBe(`Answered: ${"x".repeat(40)}…`);
    expect(closedLabel(personReplies(question, { outcome: "dismissed" }))).toBe("Dismissed");
  });
});
