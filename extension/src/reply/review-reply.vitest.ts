import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { describe, expect, it, vi } from "vitest";
import { aReview, fresh } from "../testing/asks";
import { fakeSession } from "../testing/fake-session";
import { draftFor } from "./draft.svelte";
import ReviewReply from "./ReviewReply.svelte";
import { UNDO_MS } from "./draft.svelte";

/** Presses a verdict and lets it go at once with Send now, as the person may instead of waiting. */
async function verdict(name: RegExp) {
  await fireEvent.click(screen.getByRole("button", { name }));
  await fireEvent.click(screen.getByRole("button", { name: "Send now" }));
}

function setup() {
  const ask = fresh(aReview());
  const fake = fakeSession([ask]);
  fake.client.reply.mockImplementation(async () => ({ ...ask, status: "closed" }));
  render(ReviewReply, { props: { ask }, context: fake.context });
  return { ask, ...fake };
}

describe("review reply", () => {
  it("preselects no verdict", () => {
    setup();
    expect(document.querySelectorAll("[aria-checked=true], [aria-pressed=true]").length).toBe(0);
  });

  it("holds a clicked Approve for its undo window, then approves without a note", async () => {
    vi.useFakeTimers();
    try {
      const { ask, client } = setup();
      await fireEvent.click(screen.getByRole("button", { name: /Approve/ }));
      expect(screen.getByRole("status").textContent).toContain("Approving in 5 s");
      await vi.advanceTimersByTimeAsync(UNDO_MS - 100);
      expect(client.reply).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(100);
      expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "approved" });
    } finally {
      vi.useRealTimers();
    }
  });

  it("approves with a note when one is written", async () => {
    const { ask, client } = setup();
    await fireEvent.input(screen.getByLabelText("Note or feedback"), { target: { value: "Nice and small." } });
    await verdict(/Approve/);
    expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "approved", note: "Nice and small." });
  });

  it("requests changes only with feedback", async () => {
    const { ask, client } = setup();
    await fireEvent.click(screen.getByRole("button", { name: /Request changes/ }));
    expect(screen.queryByRole("status")).toBeNull();
    expect(document.activeElement).toBe(screen.getByLabelText("Note or feedback"));
    await fireEvent.input(screen.getByLabelText("Note or feedback"), { target: { value: "Rename the flag." } });
    await verdict(/Request changes/);
    expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "changes_requested", feedback: "Rename the flag." });
  });

  it("approves on the `a` key once its undo window has passed", async () => {
    vi.useFakeTimers();
    try {
      const { ask, client, keys } = setup();
      keys.current!.approve!();
      await vi.advanceTimersByTimeAsync(0);
      expect(screen.getByRole("status").textContent).toContain("Approving in 5 s");
      await vi.advanceTimersByTimeAsync(UNDO_MS - 100);
      expect(client.reply).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(100);
      expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "approved" });
    } finally {
      vi.useRealTimers();
    }
  });

  it("sends nothing when an approval by key is undone, and keeps the note", async () => {
    vi.useFakeTimers();
    try {
      const { client, keys } = setup();
      await fireEvent.input(screen.getByLabelText("Note or feedback"), { target: { value: "Ship it." } });
      keys.current!.approve!();
      await vi.advanceTimersByTimeAsync(1_000);
      await fireEvent.click(screen.getByRole("button", { name: /^Undo/ }));
      await vi.advanceTimersByTimeAsync(UNDO_MS * 2);
      expect(client.reply).not.toHaveBeenCalled();
      expect((screen.getByLabelText("Note or feedback") as HTMLTextAreaElement).value).toBe("Ship it.");
    } finally {
      vi.useRealTimers();
    }
  });

  it("sends changes requested with line comments alone, counted beside the verdict, and skips an empty one", async () => {
    const { ask, client } = setup();
    const comments = draftFor(ask.id).comments;
    comments.start({ block: 0 });
    comments.list[0]!.body = " Say why. ";
    comments.start({ block: 0, line: 1 });
    await waitFor(() => expect(screen.getByText(/1 comment on lines/)).toBeTruthy());
    await verdict(/Request changes/);
    expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "changes_requested", comments: [{ block: 0, body: "Say why." }] });
  });

  it("approves with the comments and the note together", async () => {
    const { ask, client } = setup();
    draftFor(ask.id).comments.start({ block: 0 });
    draftFor(ask.id).comments.list[0]!.body = "Nice.";
    await fireEvent.input(screen.getByLabelText("Note or feedback"), { target: { value: "Ship it." } });
    await verdict(/Approve/);
    expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "approved", note: "Ship it.", comments: [{ block: 0, body: "Nice." }] });
  });

  it("keeps every comment when the relay refuses the reply", async () => {
    const { ask, client } = setup();
    client.reply.mockRejectedValueOnce(new Error("refused"));
    draftFor(ask.id).comments.start({ block: 0 });
    draftFor(ask.id).comments.list[0]!.body = "Keep me.";
    await verdict(/Approve/);
    await waitFor(() => expect(client.reply).toHaveBeenCalled());
    expect(draftFor(ask.id).comments.toSend).toEqual([{ block: 0, body: "Keep me." }]);
  });

  it("keeps the line comments when the person asks back instead of deciding", async () => {
    const { ask, client } = setup();
    client.reply.mockImplementation(async () => ({ ...ask, status: "awaiting_agent" }));
    draftFor(ask.id).comments.start({ block: 0 });
    draftFor(ask.id).comments.list[0]!.body = "Still stands.";
    await fireEvent.click(screen.getByRole("button", { name: "Ask back…" }));
    await fireEvent.input(screen.getByPlaceholderText("What do you need to know first?"), { target: { value: "Why?" } });
    await fireEvent.click(screen.getByRole("button", { name: /^Ask back/ }));
    await waitFor(() => expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "follow_up", question: "Why?" }));
    await waitFor(() => expect(draftFor(ask.id).comments.toSend).toEqual([{ block: 0, body: "Still stands." }]));
  });
});
