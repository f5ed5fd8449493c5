import { expect, test } from "bun:test";
import { hasWords } from "./has-words.ts";

const cases: [string, string | undefined, boolean][] = [
  ["words are words", "Which index?", true],
  ["words padded with whitespace are words", "  ok \n", true],
  ["nothing is not words", undefined, false],
  ["an empty string is not words", "", false],
  ["whitespace alone is not words", " \t\n ", false],
];
for (const [behaviour, text, expected] of cases) test(behaviour, () => expect(hasWords(text)).toBe(expected));
