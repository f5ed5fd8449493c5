import { expect, test } from "bun:test";
import { openAsk } from "@loopback/shared/ask-rules/index";
import { jsonSize } from "./json-size.ts";

const raisedBy = { id: "per_ada", name: "Ada" };
const at = "2026-12-03T12:00:00.000Z";

test("an ask's size is its JSON's length, short of it by its escapes alone", () => {
  const prose = `${"lorem ipsum ".repeat(20_000)}`;
  const code = 'const a = "b";\n'.repeat(5_000);
  const asks = [
    openAsk("question", { question: "Which?", project: "size", options: [{ label: "A" }, { label: "B", description: "the other" }] }, { id: "ask_1", at, raisedBy }),
    openAsk("review", { title: "Prose", project: "size", content: [{ type: "markdown", text: prose }] }, { id: "ask_2", at, raisedBy }),
    openAsk("review", { title: "Code", project: "size", content: [{ type: "code", language: "ts", code }] }, { id: "ask_3", at, raisedBy }),
  ];
  for (const ask of asks) {
    const json = JSON.stringify(ask);
    // Each escape (`\n`, `\"`) writes two characters for one.
    const escapes = (json.match(/\\./g) ?? []).length;
    expect({ id: ask.id, size: jsonSize(ask) }).toEqual({ id: ask.id, size: json.length - escapes });
  }
});
