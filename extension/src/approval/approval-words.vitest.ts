import { summarize } from "@loopback/shared/ask-rules/index";
import { describe, expect, it } from "vitest";
import { KIND_LABEL, askTitle, closedLabel } from "../base/ask-labels";
import { askTitleText } from "../blocks/inline-markdown";
import { anApproval, fresh, personReplies } from "../testing/asks";

describe("what an approval is for", () => {
  it("is the row's title, a command's markup shown as typed", () => {
    const ask = fresh(anApproval({ input: { command: "rm *.log && echo `date`" } }));
    expect(KIND_LABEL[ask.kind]).toBe("Approval");
    expect(askTitleText(ask)).toBe("Run rm *.log && echo `date`");
    expect(askTitle(ask)).not.toBe(askTitleText(ask));
  });

  it("reads the same listed as a summary as it does once its body has come", () => {
    const ask = fresh(anApproval({ input: { command: "npm run deploy\nnpm run smoke" } }));
    expect(askTitle(summarize(ask))).toBe(askTitle(ask));
    expect(askTitleText(summarize(ask))).toBe("Run npm run deploy");
  });

  it("says the decision on a closed row", () => {
    expect(closedLabel(personReplies(anApproval(), { outcome: "allowed", scope: "session" }))).toBe("Allowed for the session");
    expect(closedLabel(personReplies(anApproval(), { outcome: "denied", stop: true }))).toBe("Denied, agent stopped");
  });
});
