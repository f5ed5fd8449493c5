import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { describe, expect, it } from "vitest";
import { RelayError } from "../relay/relay-error";
import { aQuestion, fresh } from "../testing/asks";
import { fakeSession } from "../testing/fake-session";
import QuestionReply from "./QuestionReply.svelte";

function setup(ask = fresh(aQuestion())) {
  const fake = fakeSession([ask]);
  fake.client.reply.mockImplementation(async () => ({ ...ask, status: "closed", updatedAt: "2030-01-01T00:00:00.000Z" }));
  const view = render(QuestionReply, { props: { ask }, context: fake.context });
  return { ask, ...fake, ...view };
}

const send = () => screen.getByRole("button", { name: /Send answer/ });
const choice = (label: string) => screen.getByRole("radio", { name: new RegExp(label) });

describe("question reply", () => {
  it("offers exactly the question's choices, numbered for the keyboard", () => {
    setup();
    const radios = screen.getAllByRole("radio");
    expect(radios.map((r) => r.textContent?.replace(/\s+/g, " ").trim())).toEqual(["Yes 1", "No 2", "Later 3"]);
  });

  it("keeps Send disabled until a choice is picked or words are written", async () => {
    setup();
    expect((send() as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.click(choice("Yes"));
    expect((send() as HTMLButtonElement).disabled).toBe(false);
    await fireEvent.click(choice("Yes"));
    expect((send() as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(screen.getByLabelText("Your own words"), { target: { value: "   " } });
    expect((send() as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(screen.getByLabelText("Your own words"), { target: { value: "Only after the freeze" } });
    expect((send() as HTMLButtonElement).disabled).toBe(false);
  });

  it("takes one choice on a single-choice question: picking another replaces it", async () => {
    setup();
    await fireEvent.click(choice("Yes"));
    await fireEvent.click(choice("No"));
    expect(choice("Yes").getAttribute("aria-checked")).toBe("false");
    expect(choice("No").getAttribute("aria-checked")).toBe("true");
  });

  it("takes several choices when the question allows many", async () => {
    setup(fresh(aQuestion({ multiple: true })));
    const boxes = screen.getAllByRole("checkbox");
    await fireEvent.click(boxes[0]!);
    await fireEvent.click(boxes[2]!);
    expect(boxes.map((b) => b.getAttribute("aria-checked"))).toEqual(["true", "false", "true"]);
  });

  it("sends the contract's answered reply: the choices and the words", async () => {
    const { ask, client } = setup();
    await fireEvent.click(choice("Later"));
    await fireEvent.input(screen.getByLabelText("Your own words"), { target: { value: " After the release. " } });
    await fireEvent.click(send());
    expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "answered", selected: ["Later"], text: "After the release." });
  });

  it("shows the relay's words when it refuses, and keeps everything typed", async () => {
    const { client } = setup();
    client.reply.mockRejectedValueOnce(
      new RelayError("refused", "The ask is closed: nothing more can be added to it.", 409, { code: "ask.closed", message: "The ask is closed: nothing more can be added to it." }),
    );
    await fireEvent.click(choice("No"));
    await fireEvent.input(screen.getByLabelText("Your own words"), { target: { value: "Not this week" } });
    await fireEvent.click(send());
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("The ask is closed"));
    expect((screen.getByLabelText("Your own words") as HTMLTextAreaElement).value).toBe("Not this week");
    expect(choice("No").getAttribute("aria-checked")).toBe("true");
  });

  it("lets the person ask back, but only with words", async () => {
    const { ask, client } = setup();
    await fireEvent.click(screen.getByRole("button", { name: "Ask back…" }));
    const askBack = screen.getByRole("button", { name: /^Ask back/ });
    expect((askBack as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(screen.getByLabelText("Ask the agent before deciding"), { target: { value: "Which Friday?" } });
    expect((askBack as HTMLButtonElement).disabled).toBe(false);
    await fireEvent.click(askBack);
    expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "follow_up", question: "Which Friday?" });
  });

  it("holds a clicked Dismiss for its undo window, and Undo keeps the ask", async () => {
    const { ask, client } = setup();
    await fireEvent.click(screen.getByRole("button", { name: /Dismiss/ }));
    expect(client.reply).not.toHaveBeenCalled();
    expect(screen.getByRole("status").textContent).toContain("Dismissing in");
    await fireEvent.click(screen.getByRole("button", { name: /Undo/ }));
    expect(screen.queryByRole("status")).toBeNull();
    await fireEvent.click(screen.getByRole("button", { name: /Dismiss/ }));
    await fireEvent.click(screen.getByRole("button", { name: "Send now" }));
    expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "dismissed" });
  });

  it("asks before a `d` dismisses, with the focus on Keep", async () => {
    const { client, keys } = setup();
    keys.current!.dismiss!();
    await waitFor(() => expect(document.activeElement?.textContent).toBe("Keep"));
    expect(screen.getByRole("alertdialog").textContent).toContain("Dismiss without an answer?");
    await fireEvent.click(document.activeElement!);
    expect(screen.queryByRole("alertdialog")).toBeNull();
    expect(client.reply).not.toHaveBeenCalled();
  });

  it("answers the keyboard: number keys pick, send sends", async () => {
    const { ask, client, keys } = setup();
    keys.current!.choose!(1);
    await waitFor(() => expect(choice("No").getAttribute("aria-checked")).toBe("true"));
    keys.current!.send!();
    await waitFor(() => expect(client.reply).toHaveBeenCalledWith(ask.id, { outcome: "answered", selected: ["No"] }));
  });
});
