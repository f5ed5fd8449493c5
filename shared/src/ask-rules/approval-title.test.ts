import { expect, test } from "bun:test";
import type { ApprovalPrompt } from "../generated/types.ts";
import { approvalTitle, escapeInlineMarkdown } from "./approval-title.ts";

const prompt = (touches: ApprovalPrompt["touches"], tool = "Bash"): ApprovalPrompt => ({ tool, input: {}, touches });

test.each([
  ["a command, by its first line", prompt({ type: "command", command: "\nnpm test\nnpm run build" }), "Run npm test"],
  ["a command of blank lines, by its tool", prompt({ type: "command", command: "\n  \n" }), "Run Bash"],
  ["a long command, cut at 120 characters", prompt({ type: "command", command: "x".repeat(130) }), `Run ${"x".repeat(120)}…`],
  ["an edit, by its file", prompt({ type: "edit", file: "src/auth.ts", diff: "" }, "Edit"), "Edit src/auth.ts"],
  ["a file written whole, by its file", prompt({ type: "write", file: "notes.md", content: "secret" }, "Write"), "Write notes.md"],
  ["a fetch, by the URL's host", prompt({ type: "fetch", url: "https://example.com/a?b=c" }, "WebFetch"), "Fetch from example.com"],
  ["a fetch of something not a URL, by what it was given", prompt({ type: "fetch", url: "not a url" }, "WebFetch"), "Fetch from not a url"],
  ["anything else, by the tool", prompt({ type: "other" }, "mcp__db__drop"), "Use mcp__db__drop"],
])("an approval is titled by what it is for: %s", (_, p, words) => expect(approvalTitle(p)).toBe(words));

test("escaped, a command's markup reads as typed: every character inline markdown takes is escaped", () => {
  expect(escapeInlineMarkdown("rm *.log && echo `date` | tee [a](b) <i> ~x~ #1 !")).toBe("rm \\*.log && echo \\`date\\` \\| tee \\[a\\](b) \\<i\\> \\~x\\~ \\#1 \\!");
});
