import type { Answered, Reply, Responded } from "@loopback/shared/generated/types";
import { flushSync } from "svelte";
import { describe, expect, it } from "vitest";
import { RelayError } from "../relay/relay-error";
import { aBriefing, aQuestion, fresh, personReplies } from "../testing/asks";
import { derivedDraft } from "../testing/derived-draft.svelte";
import { fakeSession } from "../testing/fake-session";
import { draftFor, sendAllHeld, sendReply } from "./draft.svelte";

const answer: Answered = { outcome: "answered", selected: ["Yes"], text: "Before noon." };
const unreachable = () => new RelayError("unreachable", "The relay at http://relay.test could not be reached.");

function setup() {
  const ask = fresh(aQuestion());
  const fake = fakeSession([ask]);
  const draft = draftFor(ask.id);
  draft.text = "Before noon.";
  return { ask, draft, ...fake };
}

describe("a reply the relay could not be reached for", () => {
  it("is held with every word, without a red error, and sent once the relay is back", async () => {
    const { ask, draft, client, session } = setup();
    client.reply.mockRejectedValueOnce(unreachable());
    expect(await sendReply(session, ask, draft, answer)).toBe(false);
    expect(draft.held).toMatchObject({ reason: "offline", reply: answer });
    expect(draft.error).toBeNull();
    expect(draft.text).toBe("Before noon.");

    client.reply.mockImplementationOnce(async (_id: string, reply: unknown) => personReplies(ask, reply as Reply));
    sendAllHeld(session);
    await expect.poll(() => client.reply.mock.calls.length).toBe(2);
    expect(client.reply.mock.calls[1]).toEqual([ask.id, answer]);
    await expect.poll(() => draft.held).toBeNull();
  });

  it("is not sent again when the ask shows it landed before its response was lost", async () => {
    const { ask, draft, client, session, inbox } = setup();
    client.reply.mockRejectedValueOnce(unreachable());
    await sendReply(session, ask, draft, answer);
    // The snapshot after reconnecting carries the reply the relay did take.
    inbox.upsert(personReplies(ask, { ...answer }, 5));
    sendAllHeld(session);
    expect(client.reply).toHaveBeenCalledTimes(1);
    expect(draft.held).toBeNull();
    expect(draft.error).toBeNull();
    expect(draftFor(ask.id)).not.toBe(draft);
  });

  it("keeps the words and says why when the ask was answered elsewhere meanwhile", async () => {
    const { ask, draft, client, session, inbox } = setup();
    client.reply.mockRejectedValueOnce(unreachable());
    await sendReply(session, ask, draft, answer);
    inbox.upsert(personReplies(ask, { outcome: "dismissed" }, 5));
    sendAllHeld(session);
    expect(client.reply).toHaveBeenCalledTimes(1);
    expect(draft.error).toContain("answered elsewhere");
    expect(draftFor(ask.id).text).toBe("Before noon.");
  });

  it("checks the ask when the relay refuses a retry as out of turn, and does not say it twice", async () => {
    const { ask, draft, client, session } = setup();
    client.reply.mockRejectedValueOnce(unreachable());
    await sendReply(session, ask, draft, answer);
    // The inbox has not caught up, but the relay has the reply: it refuses the second one.
    client.reply.mockRejectedValueOnce(new RelayError("refused", "It is not your move on this ask.", 409, { code: "ask.not_your_turn", message: "It is not your move on this ask." }));
    client.ask.mockResolvedValueOnce(personReplies(ask, answer, 5));
    sendAllHeld(session);
    await expect.poll(() => client.ask.mock.calls.length).toBe(1);
    await expect.poll(() => draft.held).toBeNull();
    expect(draft.error).toBeNull();
    expect(client.reply).toHaveBeenCalledTimes(2);
  });
});

describe("one briefing point sent alone", () => {
  it("keeps the words and marks on the other points for the next reply, and drops the one sent", async () => {
    const ask = fresh(aBriefing());
    const { client, session } = fakeSession([ask]);
    const draft = draftFor(ask.id);
    draft.point("1").text = "Why?";
    draft.point("2").resolved = true;
    draft.point("3").text = "   ";
    const reply: Responded = { outcome: "responded", points: [{ point: "1", text: "Why?" }] };
    client.reply.mockImplementationOnce(async (_id: string, sent: unknown) => personReplies(ask, sent as Reply));
    expect(await sendReply(session, ask, draft, reply)).toBe(true);
    expect(draftFor(ask.id)).not.toBe(draft);
    expect(draftFor(ask.id).points).toEqual({ "2": { text: "", resolved: true } });
  });
});

describe("a draft the relay took", () => {
  it("leaves every view that derived it, with no change to the ask (as when the agent's next turn was shown before the person's 200)", async () => {
    const { ask, draft, client, session } = setup();
    const view = derivedDraft(ask.id);
    expect(view.current()).toBe(draft);
    // The 200 is the last thing to arrive: the view has already re-derived, on the next turn's frame.
    client.reply.mockImplementationOnce(async (_id: string, reply: unknown) => personReplies(ask, reply as Reply));
    expect(await sendReply(session, ask, draft, answer)).toBe(true);
    flushSync();
    expect(view.current()).not.toBe(draft);
    expect(view.current().text).toBe("");
    view.stop();
  });
});
