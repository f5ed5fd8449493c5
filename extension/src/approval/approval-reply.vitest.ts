import { fireEvent, render, screen } from "@testing-library/svelte";
import { describe, expect, it, vi } from "vitest";
import { anApproval, fresh } from "../testing/asks";
import { fakeSession } from "../testing/fake-session";
import { UNDO_MS } from "../reply/draft.svelte";
import ApprovalReply from "./ApprovalReply.svelte";

/** Presses a decision and lets it go at once with Send now, as the person may instead of waiting. */
async function decide(name: RegExp) {
  await fireEvent.click(screen.getByRole("button", { name }));
  await fireEvent.click(screen.getByRole("button", { name: "Send now" }));
}

function setup(ask = fresh(anApproval())) {
  const fake = fakeSession([ask]);
  fake.client.reply.mockImplementation(async () => ({ ...ask, status: "closed" }));
  render(ApprovalReply, { props: { ask }, context: fake.context });
  return { ask, ...fake };
}

describe("approval reply", () => {
  it("holds a clicked Allow for its undo window, and Undo takes it back", async () => {
    vi.useFakeTimers();
    try {
      const { client } = setup();
      await fireEvent.click(screen.getByRole("button", { name: /^✓ Allow/ }));
      expect(screen.getByRole("status").textContent).toContain("Allowing in 5 s");
      await fireEvent.click(screen.getByRole("button", { name: /Undo/ }));
      await vi.advanceTimersByTimeAsync(UNDO_MS + 100);
      expect(client.reply).not.toHaveBeenCalled();
    } finally {
      vi.useRealTimers();
    }
  });

  it("allows once", async () => {
    const { ask, client } = setup();
    await decide(/^✓ Allow/);
    expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "allowed" });
  });

  it("allows for the session", async () => {
    const { ask, client } = setup();
    await decide(/Allow for this session/);
    expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "allowed", scope: "session" });
  });

  it("denies with the message written, and can stop the agent", async () => {
    const { ask, client } = setup();
    await fireEvent.input(screen.getByLabelText("Message for the agent if you deny"), { target: { value: "Not on main." } });
    await decide(/Deny and stop/);
    expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "denied", message: "Not on main.", stop: true });
  });

  it("sends the whole input with the command as the person edited it", async () => {
    const { ask, client } = setup();
    await fireEvent.click(screen.getByRole("button", { name: /Edit the command/ }));
    await fireEvent.input(screen.getByLabelText("The command to run"), { target: { value: "rm -rf build/tmp" } });
    await decide(/Allow edited/);
    expect(client.reply).toHaveBeenCalledWith(ask.id, {
      outcome: "allowed",
      input: { command: "rm -rf build/tmp", description: "Remove the build output" },
    });
  });

  it("sends no input when the edit leaves the command as it was", async () => {
    const { ask, client } = setup();
    await fireEvent.click(screen.getByRole("button", { name: /Edit the command/ }));
    await decide(/^✓ Allow/);
    expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "allowed" });
  });

  it("offers the content of a file written whole for editing", async () => {
    const { ask, client } = setup(fresh(anApproval({ tool_name: "Write", input: { file_path: "/repo/notes.md", content: "# Notes\n" } })));
    await fireEvent.click(screen.getByRole("button", { name: /Edit the content/ }));
    await fireEvent.input(screen.getByLabelText("The content to write"), { target: { value: "# Notes\nMore.\n" } });
    await decide(/Allow edited/);
    expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "allowed", input: { file_path: "/repo/notes.md", content: "# Notes\nMore.\n" } });
  });
});
