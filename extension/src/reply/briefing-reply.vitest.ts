import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import type { Responded } from "@loopback/shared/generated/types";
import { describe, expect, it } from "vitest";
import BriefingBody from "../ask/BriefingBody.svelte";
import { aBriefing, agentAnswers, fresh, personResponds } from "../testing/asks";
import { fakeSession } from "../testing/fake-session";

function setup(ask = fresh(aBriefing())) {
  const fake = fakeSession([ask]);
  fake.client.reply.mockImplementation(async () => ({ ...ask, status: "awaiting_agent", updatedAt: "2030-01-01T00:00:00.000Z" }));
  const view = render(BriefingBody, { props: { ask }, context: fake.context });
  return { ask, ...fake, ...view };
}

const point = (id: string) => document.querySelector(`[data-point="${id}"]`) as HTMLElement;
const openPoint = (id: string) => fireEvent.click(within(point(id)).getAllByRole("button")[0]!);
const sendButton = () => screen.getByRole("button", { name: "Send replies" }) as HTMLButtonElement;

describe("briefing reply", () => {
  it("shows every point folded to its title, under its section", () => {
    setup(fresh(aBriefing({ sections: [{ title: "Findings", points: [{ title: "The cache is cold", detail: "It is **never** warmed." }] }] })));
    expect(screen.getByText("Findings")).toBeTruthy();
    expect(screen.getByText("The cache is cold")).toBeTruthy();
    expect(screen.queryByText("never")).toBeNull();
  });

  it("opens a point to read its detail and write on it", async () => {
    setup(fresh(aBriefing({ sections: [{ points: [{ title: "The cache is cold", detail: "It is **never** warmed." }] }] })));
    await openPoint("1");
    expect(screen.getByText("never").tagName).toBe("STRONG");
    expect(screen.getByLabelText("Reply on point 1")).toBeTruthy();
  });

  it("keeps Send disabled until a point is written on or resolved", async () => {
    setup();
    expect(sendButton().disabled).toBe(true);
    await openPoint("2");
    await fireEvent.input(screen.getByLabelText("Reply on point 2"), { target: { value: "Which index?" } });
    expect(sendButton().disabled).toBe(false);
  });

  it("refuses to send resolutions that leave the agent nothing to answer", async () => {
    setup();
    await openPoint("1");
    await fireEvent.click(within(point("1")).getByRole("checkbox"));
    expect(sendButton().disabled).toBe(true);
    expect(screen.getByText(/write on at least one you leave open/)).toBeTruthy();
    await fireEvent.click(screen.getByRole("button", { name: "Resolve all" }));
    expect(sendButton().disabled).toBe(false);
  });

  it("sends every point written on or resolved, all at once", async () => {
    const { ask, client } = setup();
    await openPoint("1");
    await fireEvent.click(within(point("1")).getByRole("checkbox"));
    await openPoint("3");
    await fireEvent.input(screen.getByLabelText("Reply on point 3"), { target: { value: "Show me the query." } });
    await fireEvent.click(sendButton());
    expect(client.reply).toHaveBeenCalledWith(ask.id, {
      outcome: "responded",
      points: [{ point: "1", resolved: true }, { point: "3", text: "Show me the query." }],
    });
  });

  it("resolving a point resolves the sub-points beneath it", async () => {
    let ask = fresh(aBriefing());
    ask = personResponds(ask, [{ point: "2", text: "Which one?" }]);
    ask = agentAnswers(ask, [{ point: "2", answer: "Two of them.", points: [{ title: "On users.email" }, { title: "On orders.user_id" }] }]);
    const { client } = setup(ask);
    // The point with a new answer opens by itself.
    expect(screen.getByText("Two of them.")).toBeTruthy();
    await openPoint("2.1");
    await fireEvent.click(within(point("2")).getAllByRole("checkbox")[0]!);
    expect((within(point("2.1")).getByRole("checkbox") as HTMLInputElement).disabled).toBe(true);
    expect(within(point("2.1")).getByText("Resolving")).toBeTruthy();
    await openPoint("1");
    await fireEvent.input(screen.getByLabelText("Reply on point 1"), { target: { value: "Why cold?" } });
    await fireEvent.click(sendButton());
    expect(client.reply).toHaveBeenCalledWith(ask.id, {
      outcome: "responded",
      points: [{ point: "1", text: "Why cold?" }, { point: "2", resolved: true }],
    });
  });

  it("sends words written on a sub-point when the point above it is resolved", async () => {
    let ask = fresh(aBriefing());
    ask = personResponds(ask, [{ point: "2", text: "Which one?" }]);
    ask = agentAnswers(ask, [{ point: "2", answer: "Two of them.", points: [{ title: "On users.email" }, { title: "On orders.user_id" }] }]);
    const { client } = setup(ask);
    await openPoint("2.1");
    await fireEvent.input(screen.getByLabelText("Reply on point 2.1"), { target: { value: "Keep this one unique." } });
    await fireEvent.click(screen.getByRole("button", { name: "Resolve all" }));
    // Still there to read and change, and counted as written on.
    const box = screen.getByLabelText("Reply on point 2.1") as HTMLTextAreaElement;
    expect(box.disabled).toBe(false);
    expect(box.value).toBe("Keep this one unique.");
    expect(screen.getByText(/1 written on/)).toBeTruthy();
    await fireEvent.click(sendButton());
    expect(client.reply).toHaveBeenCalledWith(ask.id, {
      outcome: "responded",
      points: [
        { point: "1", resolved: true },
        { point: "2", resolved: true },
        { point: "2.1", text: "Keep this one unique." },
        { point: "3", resolved: true },
        { point: "4", resolved: true },
      ],
    });
  });

  it("while the agent answers, offers only to dismiss", async () => {
    const ask = personResponds(fresh(aBriefing()), [{ point: "1", text: "Why?" }]);
    setup(ask);
    expect(screen.queryByRole("button", { name: "Send replies" })).toBeNull();
    expect(screen.getByText(/The agent is answering point/).textContent).toContain("1");
    expect(screen.getByRole("button", { name: /Dismiss/ })).toBeTruthy();
    await openPoint("2");
    expect(screen.queryByLabelText("Reply on point 2")).toBeNull();
  });

  it("keeps what was written when the relay refuses", async () => {
    const { client } = setup();
    client.reply.mockRejectedValueOnce(new Error("It is not your move on this ask."));
    await openPoint("4");
    await fireEvent.input(screen.getByLabelText("Reply on point 4"), { target: { value: "Do it today." } });
    await fireEvent.click(sendButton());
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("not your move"));
    expect((screen.getByLabelText("Reply on point 4") as HTMLTextAreaElement).value).toBe("Do it today.");
  });

  it("starts the next round from an empty draft", async () => {
    const first = fresh(aBriefing());
    const { client, rerender } = setup(first);
    let afterReply = first;
    client.reply.mockImplementation(async (_id: string, reply: unknown) => (afterReply = personResponds(first, (reply as Responded).points)));
    await openPoint("1");
    await fireEvent.input(screen.getByLabelText("Reply on point 1"), { target: { value: "Why cold?" } });
    await fireEvent.click(sendButton());
    await waitFor(() => expect(client.reply).toHaveBeenCalled());
    await rerender({ ask: agentAnswers(afterReply, [{ point: "1", answer: "Nothing warms it." }]) });
    await waitFor(() => expect(screen.getByText("Nothing warms it.")).toBeTruthy());
    expect((screen.getByLabelText("Reply on point 1") as HTMLTextAreaElement).value).toBe("");
    expect(sendButton().disabled).toBe(true);
  });
});
