import { fireEvent, render, screen } from "@testing-library/svelte";
import { describe, expect, it, vi } from "vitest";
import { aReview, fresh } from "../testing/asks";
import { fakeSession } from "../testing/fake-session";
import ReviewReply from "./ReviewReply.svelte";
import { UNDO_MS } from "./draft.svelte";

function setup() {
  const ask = fresh(aReview());
  const fake = fakeSession([ask]);
  fake.client.reply.mockImplementation(async () => ({ ...ask, status: "closed" }));
  render(ReviewReply, { props: { ask }, context: fake.context });
  return { ask, ...fake };
}

describe("review reply", () => {
  it("approves without a note", async () => {
    const { ask, client } = setup();
    const approve = screen.getByRole("button", { name: /^Approve/ });
    expect((approve as HTMLButtonElement).disabled).toBe(false);
    await fireEvent.click(approve);
    expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "approved" });
  });

  it("approves with a note when one is written", async () => {
    const { ask, client } = setup();
    await fireEvent.input(screen.getByLabelText("Note"), { target: { value: "Nice and small." } });
    await fireEvent.click(screen.getByRole("button", { name: /^Approve/ }));
    expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "approved", note: "Nice and small." });
  });

  it("requests changes only with feedback", async () => {
    const { ask, client } = setup();
    await fireEvent.click(screen.getByRole("radio", { name: /Request changes/ }));
    const requestChanges = screen.getByRole("button", { name: /^Request changes/ });
    expect((requestChanges as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(screen.getByLabelText("Feedback"), { target: { value: "Rename the flag." } });
    expect((requestChanges as HTMLButtonElement).disabled).toBe(false);
    await fireEvent.click(requestChanges);
    expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "changes_requested", feedback: "Rename the flag." });
  });

  it("approves on the `a` key, whatever verdict is showing, once its undo window has passed", async () => {
    vi.useFakeTimers();
    try {
      const { ask, client, keys } = setup();
      await fireEvent.click(screen.getByRole("radio", { name: /Request changes/ }));
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
      await fireEvent.input(screen.getByLabelText("Note"), { target: { value: "Ship it." } });
      keys.current!.approve!();
      await vi.advanceTimersByTimeAsync(1_000);
      await fireEvent.click(screen.getByRole("button", { name: /^Undo/ }));
      await vi.advanceTimersByTimeAsync(UNDO_MS * 2);
      expect(client.reply).not.toHaveBeenCalled();
      expect((screen.getByLabelText("Note") as HTMLTextAreaElement).value).toBe("Ship it.");
    } finally {
      vi.useRealTimers();
    }
  });
});
