import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import type { Reply } from "@loopback/shared/generated/types";
import { beforeEach, describe, expect, it } from "vitest";
import { aQuestion, aReview, fresh, personReplies } from "../testing/asks";
import { fakeSession } from "../testing/fake-session";
import InboxApp from "./InboxApp.svelte";
import { Route } from "./route.svelte";
import { sentNotice } from "../reply/sent-notice.svelte";

const at = (minute: number) => `2025-01-01T10:${String(minute).padStart(2, "0")}:00.000Z`;

function setup() {
  const question = fresh(aQuestion({ question: "Ship on Friday?" }), { createdAt: at(9), waiting: true });
  const review = fresh(aReview({ title: "Release notes" }), { createdAt: at(5) });
  const closed = personReplies(fresh(aQuestion({ question: "Old one?" })), { outcome: "dismissed" });
  const fake = fakeSession([question, review, closed]);
  fake.client.reply.mockImplementation(async (id: string, reply: unknown) => personReplies(fake.inbox.get(id)! as typeof question, reply as Reply, 30));
  const route = new Route();
  render(InboxApp, { props: { session: fake.session, route } });
  return { question, review, closed, route, ...fake };
}

const key = (key: string, init: KeyboardEventInit = {}) => fireEvent.keyDown(window, { key, ...init });
const selected = () => document.querySelector(".row.selected")?.getAttribute("data-ask-row");

describe("the inbox", () => {
  beforeEach(() => {
    location.hash = "";
  });

  it("lists the person's move, then recently closed, with the count waiting", () => {
    setup();
    const groups = [...document.querySelectorAll("section.group h2")].map((h) => h.textContent?.replace(/\d+/g, "").trim());
    expect(groups).toEqual(["Your move", "Recently closed"]);
    expect(document.querySelector(".badge")?.textContent).toBe("2");
    expect(screen.getByText("Ship on Friday?")).toBeTruthy();
  });

  it("marks an open ask whose agent stopped waiting", () => {
    const { review } = setup();
    const row = document.querySelector(`[data-ask-row="${review.id}"]`)!;
    expect(row.textContent).toContain("agent stopped waiting");
  });

  it("moves with j/k and the arrows among open asks, and opens with Enter", async () => {
    const { question, review, route } = setup();
    expect(selected()).toBe(question.id);
    await key("j");
    expect(selected()).toBe(review.id);
    // Closed asks are skipped: the last open one stays selected.
    await key("ArrowDown");
    expect(selected()).toBe(review.id);
    await key("k");
    expect(selected()).toBe(question.id);
    await key("j");
    await key("Enter");
    expect(route.askId).toBe(review.id);
    await waitFor(() => expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Release notes"));
    await key("Escape");
    expect(route.askId).toBeNull();
  });

  it("answers a question from the keyboard alone", async () => {
    const { question, client } = setup();
    await key("Enter");
    await waitFor(() => expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Ship on Friday?"));
    await key("2");
    expect(screen.getByRole("radio", { name: /No/ }).getAttribute("aria-checked")).toBe("true");
    await key("Enter", { ctrlKey: true });
    await waitFor(() => expect(client.reply).toHaveBeenCalledWith(question.id, { outcome: "answered", selected: ["No"] }));
  });

  it("approves a review with a, and dismisses with d only after confirming", async () => {
    sentNotice.clear();
    const { review, question, client, route } = setup();
    route.open(question.id);
    await waitFor(() => expect(screen.getByRole("heading", { level: 1 })).toBeTruthy());
    await key("d");
    expect(screen.getByRole("alertdialog")).toBeTruthy();
    // The focus is on Keep: a space after a stray `d` keeps the ask.
    await waitFor(() => expect(document.activeElement?.textContent).toBe("Keep"));
    expect(client.reply).not.toHaveBeenCalled();
    await key("Escape");
    route.open(review.id);
    await waitFor(() => expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Release notes"));
    await key("a");
    expect(screen.getByRole("status").textContent).toContain("Approving in");
    expect(client.reply).not.toHaveBeenCalled();
    await key("u");
    expect(screen.queryByRole("status")).toBeNull();
    await key("a");
    await fireEvent.click(screen.getByRole("button", { name: "Send now" }));
    await waitFor(() => expect(client.reply).toHaveBeenCalledWith(review.id, { outcome: "approved" }));
  });

  it("sends an approval still in its undo window when the page closes, as the person meant", async () => {
    const { review, client, route } = setup();
    route.open(review.id);
    await waitFor(() => expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Release notes"));
    await key("a");
    expect(client.reply).not.toHaveBeenCalled();
    window.dispatchEvent(new Event("pagehide"));
    expect(client.reply).toHaveBeenCalledWith(review.id, { outcome: "approved" }, undefined, { keepalive: true });
  });

  it("walks closed asks only in history, with h", async () => {
    const { closed, question } = setup();
    await key("h");
    expect(selected()).toBe(closed.id);
    await key("j");
    expect(selected()).toBe(closed.id);
    await key("h");
    expect(selected()).toBe(question.id);
  });

  it("starts on the first ask waiting, even when a closed one was there first", async () => {
    const closed = personReplies(fresh(aQuestion({ question: "Old one?" })), { outcome: "dismissed" });
    const fake = fakeSession([closed]);
    render(InboxApp, { props: { session: fake.session, route: new Route() } });
    expect(selected()).toBe(closed.id);
    const waiting = fresh(aQuestion({ question: "New one?" }), { createdAt: at(40) });
    fake.inbox.upsert(waiting);
    await waitFor(() => expect(selected()).toBe(waiting.id));
  });

  it("moves on to the next ask waiting once the open one is answered", async () => {
    const { question, review, route } = setup();
    route.open(question.id);
    await waitFor(() => expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Ship on Friday?"));
    await key("1");
    await key("Enter", { ctrlKey: true });
    await waitFor(() => expect(route.askId).toBe(review.id));
    await waitFor(() => expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Release notes"));
  });

  it("ignores shortcuts while the person types, except send", async () => {
    const { route, question } = setup();
    route.open(question.id);
    const box = await screen.findByLabelText("Your own words");
    box.focus();
    await fireEvent.keyDown(box, { key: "j" });
    expect(route.askId).toBe(question.id);
  });

  it("shows the shortcuts on ?", async () => {
    setup();
    await key("?");
    const help = screen.getByRole("dialog", { name: "Keyboard shortcuts" });
    expect(help.textContent).toContain("Next ask");
    await key("Escape");
    expect(screen.queryByRole("dialog")).toBeNull();
  });
});
