import { expect, test } from "bun:test";
import { checkSize, MAX_BODY_BYTES } from "./size.ts";
import { codeOf } from "../testing/sample-asks.ts";

// A JSON string is its characters plus two quotes.
const jsonString = (bytes: number, char = "a") => char.repeat((bytes - 2) / new TextEncoder().encode(char).byteLength);

const cases: [string, unknown, "input.too_large" | null][] = [
  ["a small input passes", { question: "Ship?", project: "loopback" }, null],
  ["an input of exactly 256 KiB passes", jsonString(MAX_BODY_BYTES), null],
  ["an input one byte over 256 KiB is refused", jsonString(MAX_BODY_BYTES + 1), "input.too_large"],
  ["characters are counted in UTF-8 bytes: 256 KiB of two-byte characters passes", jsonString(MAX_BODY_BYTES, "é"), null],
  ["characters are counted in UTF-8 bytes, not characters", jsonString(MAX_BODY_BYTES + 2, "é"), "input.too_large"],
  ["four-byte characters count four bytes", jsonString(MAX_BODY_BYTES + 2, "😀"), "input.too_large"],
  ["the whole input counts, not one field", { a: jsonString(MAX_BODY_BYTES / 2), b: jsonString(MAX_BODY_BYTES / 2) }, "input.too_large"],
];
for (const [behaviour, value, refusal] of cases) test(behaviour, () => expect(codeOf(checkSize(value))).toBe(refusal));

test("the limit is 256 KiB", () => expect(MAX_BODY_BYTES).toBe(262_144));

test("a refusal says how large the input was", () => expect(checkSize(jsonString(300 * 1024))?.message).toContain("300 KiB"));
