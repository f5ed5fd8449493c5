import type { ApprovalPrompt } from "@loopback/shared/generated/types";
import { describe, expect, it } from "vitest";
import { KIND_LABEL, askTitle, closedLabel } from "../base/ask-labels";
import { askTitleText } from "../blocks/inline-markdown";
import { anApproval, fresh, personReplies } from "../testing/asks";
import { approvalFor } from "./approval-labels";

const prompt = (touches: ApprovalPrompt["touches"], tool = "Bash"): ApprovalPrompt => ({ tool, input: {}, touches });

describe("what an approval is for", () => {
  it.each([
    ["a command, by its first line", prompt({ type: "command", command: "\nnpm test\nnpm run build" }), "Run npm test"],
    ["an edit, by its file", prompt({ type: "edit", file: "src/auth.ts", diff: "" }, "Edit"), "Edit src/auth.ts"],
    ["a file written whole, by its file", prompt({ type: "write", file: "notes.md", content: "secret" }, "Write"), "Write notes.md"],
    ["a fetch, by the URL's host", prompt({ type: "fetch", url: "https://example.com/a?b=c" }, "WebFetch"), "Fetch from example.com"],
    ["anything else, by the tool", prompt({ type: "other" }, "mcp__db__drop"), "Use mcp__db__drop"],
  ])("%s", (_, p, words) => expect(approvalFor(p)).toBe(words));

  it("is the row's title, a command's markup shown as typed", () => {
    const ask = fresh(anApproval({ input: { command: "rm *.log && echo `date`" } }));
    expect(KIND_LABEL[ask.kind]).toBe("Approval");
    expect(askTitleText(ask)).toBe("Run rm *.log && echo `date`");
    expect(askTitle(ask)).not.toBe(askTitleText(ask));
  });

  it("says the decision on a closed row", () => {
    expect(closedLabel(personReplies(anApproval(), { outcome: "allowed", scope: "session" }))).toBe("Allowed for the session");
    expect(closedLabel(personReplies(anApproval(), { outcome: "denied", stop: true }))).toBe("Denied, agent stopped");
  });
});
