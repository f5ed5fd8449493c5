import { summarize } from "@loopback/shared/ask-rules/summarize";
import { describe, expect, it } from "vitest";
import { aBriefing, aQuestion, aReview, fresh, personReplies } from "../testing/asks";
import { askTitleText } from "../blocks/inline-markdown";
import { askTitle, closedLabel, questionBody } from "./ask-labels";
import { Inbox } from "./inbox.svelte";

const at = (minute: number) => `2025-01-01T10:${String(minute).padStart(2, "0")}:00.000Z`;

describe("inbox", () => {
  it("lists the person's move first, then the agent's, newest first within each", () => {
    const inbox = new Inbox();
    const old = fresh(aQuestion(), { createdAt: at(1) });
    const recent = fresh(aReview(), { createdAt: at(5) });
    const agents = personReplies(fresh(aQuestion(), { createdAt: at(9) }), { outcome: "follow_up", question: "?" });
    inbox.reset({ open: [old, agents, recent], recent: [] });
    expect(inbox.open.map((a) => a.id)).toEqual([recent.id, old.id, agents.id]);
    expect(inbox.awaitingHuman).toBe(2);
  });

  it("starts over from a snapshot: asks it lacks are gone", () => {
    const inbox = new Inbox();
    const a = fresh(aQuestion());
    const b = fresh(aQuestion());
    inbox.reset({ open: [a, b], recent: [] });
    inbox.reset({ open: [b], recent: [] });
    expect(inbox.get(a.id)).toBeUndefined();
    expect(inbox.loaded).toBe(true);
  });

  it("never rolls an ask back to an older copy", () => {
    const inbox = new Inbox();
    const ask = fresh(aQuestion());
    const closed = personReplies(ask, { outcome: "dismissed" }, 5);
    inbox.upsert(closed);
    inbox.upsert(ask);
    expect(inbox.get(ask.id)?.status).toBe("closed");
    expect(inbox.closed.map((a) => a.id)).toEqual([ask.id]);
  });

  it("lists an ask by its summary until its body comes, and never trades the body back for a summary of the same change", () => {
    const inbox = new Inbox();
    const ask = fresh(aQuestion());
    inbox.reset({ open: [summarize(ask)], recent: [] });
    expect(inbox.open.map((a) => a.id)).toEqual([ask.id]);
    expect(inbox.get(ask.id)).toBeUndefined();
    expect(inbox.entry(ask.id)).toEqual(summarize(ask));
    inbox.remember(ask);
    expect(inbox.get(ask.id)).toEqual(ask);
    inbox.upsert(summarize(ask));
    inbox.reset({ open: [summarize(ask)], recent: [] });
    expect(inbox.get(ask.id)).toEqual(ask);
    const later = personReplies(ask, { outcome: "dismissed" }, 5);
    inbox.reset({ open: [], recent: [summarize(later)] });
    expect(inbox.get(ask.id)).toBeUndefined();
    expect(inbox.closed.map((a) => a.id)).toEqual([ask.id]);
  });

  it("titles and labels a row from a summary as from the whole ask", () => {
    const question = fresh(aQuestion({ question: "## Ship **now**?\n\nMore below." }));
    expect(askTitle(summarize(question))).toBe(askTitle(question));
    const answered = personReplies(fresh(aQuestion()), { outcome: "answered", selected: ["Yes"], text: "and soon" }, 1);
    expect(closedLabel(summarize(answered))).toBe(closedLabel(answered));
  });

  it("filters by project and pages history behind the live set", () => {
    const inbox = new Inbox();
    const mine = fresh(aQuestion({ project: "web" }));
    const theirs = fresh(aBriefing({ project: "api" }));
    inbox.reset({ open: [mine, theirs], recent: [] });
    expect(inbox.projects).toEqual(["api", "web"]);
    inbox.project = "web";
    expect(inbox.ordered.map((a) => a.id)).toEqual([mine.id]);
    const old = personReplies(fresh(aQuestion({ project: "web" })), { outcome: "dismissed" }, 1);
    inbox.addHistory([old], undefined);
    expect(inbox.visibleClosed.map((a) => a.id)).toEqual([old.id]);
    expect(inbox.historyDone).toBe(true);
  });

  it("titles a question by its first line, keeping its inline markdown and dropping its block marker", () => {
    const ask = fresh(aQuestion({ question: "\n## Ship **now**?\n\nMore below." }));
    expect(askTitle(ask)).toBe("Ship **now**?");
    expect(askTitleText(ask)).toBe("Ship now?");
    expect(questionBody(ask.kind === "question" ? ask.prompt.question : "")).toBe("More below.");
  });

  it("keeps identifiers in a title as written", () => {
    const ask = fresh(aQuestion({ question: "Rename `sku` to `item_code` in __init__?" }));
    expect(askTitleText(ask)).toBe("Rename sku to item_code in __init__?");
  });

  it("shows all of a question whose first line is too long for a title", () => {
    const long = `${"word ".repeat(60)}end`;
    expect(askTitle(fresh(aQuestion({ question: long })))).toMatch(/…$/);
    expect(questionBody(long)).toBe(long);
  });
});
