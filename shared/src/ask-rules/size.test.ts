import { expect, test } from "bun:test";
import { checkReplySize, checkSize, MAX_BODY_BYTES, MAX_REPLY_BYTES } from "./size.ts";
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

test("a reply's line comments are bounded by the contract, not by the 256 KiB of the rest", () => {
  const comments = Array.from({ length: 100 }, (_, block) => ({ block, body: "x".repeat(20_000) }));
  expect(checkReplySize({ outcome: "approved", comments })).toBeNull();
  expect(codeOf(checkReplySize({ outcome: "approved", note: jsonString(MAX_BODY_BYTES + 1), comments }))).toBe("input.too_large");
  // The largest reply the contract allows fits the body a reply may send.
  const widest = JSON.stringify({ outcome: "approved", note: "n".repeat(200 * 1024), comments: Array.from({ length: 100 }, (_, block) => ({ block, file: "src/a.ts", side: "new", line: 1, body: "😀".repeat(10_000) })) });
  expect(new TextEncoder().encode(widest).byteLength).toBeLessThan(MAX_REPLY_BYTES);
});
