import { render, screen } from "@testing-library/svelte";
import { describe, expect, it, vi } from "vitest";
import { aQuestion, aReview, fresh, personReplies } from "../testing/asks";
import { fakeSession } from "../testing/fake-session";
import AskView from "./AskView.svelte";

function show(ask: Parameters<typeof fresh>[0], others = [] as Parameters<typeof fresh>[0][]) {
  const fake = fakeSession([ask, ...others]);
  const onopen = vi.fn();
  render(AskView, { props: { ask, onopen }, context: fake.context });
  return { onopen, ...fake };
}

describe("ask view", () => {
  it("shows who asked, from where, and that the agent stopped waiting", () => {
    show(fresh(aQuestion(), { waiting: false, client: "claude-code 2.1.0", raisedBy: { id: "p1", name: "Ada" } }));
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Ship on Friday?");
    expect(screen.getByText("loopback")).toBeTruthy();
    expect(screen.getByText("claude-code 2.1.0")).toBeTruthy();
    expect(screen.getByText("Ada's agent")).toBeTruthy();
    expect(screen.getByText(/Agent stopped waiting/)).toBeTruthy();
  });

  it("says the agent is waiting while it is", () => {
    show(fresh(aQuestion(), { waiting: true }));
    expect(screen.getByText("The agent is waiting for you")).toBeTruthy();
  });

  it("offers no reply on a closed ask, and shows what was answered", () => {
    const ask = personReplies(fresh(aQuestion()), { outcome: "answered", selected: ["Yes"], text: "Go." });
    show(ask);
    expect(screen.queryByRole("region", { name: "Reply" })).toBeNull();
    expect(screen.getByText("You answered")).toBeTruthy();
    expect(screen.getByText("Yes")).toBeTruthy();
  });

  it("waits for the agent after the person asked back", () => {
    const ask = personReplies(fresh(aQuestion()), { outcome: "follow_up", question: "Which Friday?" });
    show(ask);
    expect(screen.queryByRole("region", { name: "Reply" })).toBeNull();
    expect(screen.getByText("You asked back")).toBeTruthy();
    expect(screen.getByText(/Waiting for the agent/)).toBeTruthy();
  });

  it("links a review to the review it revises", async () => {
    const first = fresh(aReview({ title: "First cut" }));
    const second = fresh(aReview({ title: "Second cut" }), { revises: first.id });
    const { onopen } = show(second, [first]);
    const link = screen.getByRole("link", { name: "First cut" });
    link.click();
    expect(onopen).toHaveBeenCalledWith(first.id);
  });

  it("renders a review's content blocks in order", () => {
    show(
      fresh(
        aReview({
          content: [
            { type: "markdown", text: "Read this **first**." },
            { type: "code", code: "let x = 1;", language: "rust", filename: "x.rs" },
            { type: "diff", diff: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n" },
            { type: "image", uploadId: "up_1", caption: "Screenshot" },
          ],
        }),
      ),
    );
    const kinds = [...document.querySelectorAll("[data-block], .markdown")].map((el) => el.getAttribute("data-block") ?? "markdown");
    expect(kinds).toEqual(["markdown", "code", "diff", "image"]);
  });
});
