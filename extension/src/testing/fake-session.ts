import type { Ask } from "@loopback/shared/generated/types";
import { vi } from "vitest";
import { Inbox } from "../base/inbox.svelte";
import { SESSION_CONTEXT_KEY, type Session } from "../base/session";
import type { RelayClient } from "../relay/relay-client";
import { REPLY_KEYS_CONTEXT_KEY as REPLY_KEYS, ReplyKeys } from "../reply/reply-keys";

export type FakeClient = { [K in "reply" | "file" | "ask" | "history"]: ReturnType<typeof vi.fn> };

/** A session over a fake relay client whose calls the test scripts and inspects. */
export function fakeSession(asks: Ask[] = []) {
  const inbox = new Inbox();
  inbox.reset({ open: asks.filter((a) => a.status !== "closed"), recent: asks.filter((a) => a.status === "closed") });
  const client = {
    base: "http://relay.test",
    reply: vi.fn(async (_id: string, _reply: unknown) => asks[0]),
    file: vi.fn(async () => new Blob([new Uint8Array([137, 80, 78, 71])], { type: "image/png" })),
    ask: vi.fn(),
    history: vi.fn(async () => ({ items: [] })),
  } satisfies FakeClient & { base: string };
  const session: Session = {
    surface: "extension",
    inbox,
    client: client as unknown as RelayClient,
    stream: { state: "live", since: new Date().toISOString() },
    revision: "same",
    who: null,
    applied: (ask) => inbox.upsert(ask),
    reconnect: vi.fn(),
    openSettings: vi.fn(),
  };
  const keys = new ReplyKeys();
  const context = new Map<unknown, unknown>([
    [SESSION_CONTEXT_KEY, session],
    [REPLY_KEYS, keys],
  ]);
  return { session, client, inbox, keys, context };
}
