import type { Ask, Whoami } from "@loopback/shared/generated/types";
import { getContext, setContext } from "svelte";
import type { RelayClient } from "../relay/relay-client";
import type { StreamState } from "../relay/event-stream";
import type { RevisionGap } from "../relay/revision";
import type { Inbox } from "./inbox.svelte";

/** What the inbox's components need from whoever runs it: the extension's side panel, or the web page. */
export interface Session {
  readonly surface: "extension" | "web";
  readonly inbox: Inbox;
  /** Null until the person has connected to a relay. */
  readonly client: RelayClient | null;
  readonly stream: StreamState | null;
  readonly revision: RevisionGap;
  readonly who: Whoami | null;
  /** Applies the ask a reply's response carries, before the socket echoes it. */
  applied(ask: Ask): void;
  /** Asks for a fresh connection now, instead of after the backoff. */
  reconnect(): void;
  /** Where the person changes the relay or token. */
  openSettings(): void;
}

const KEY = Symbol("loopback.session");

export const setSession = (session: Session) => setContext(KEY, session);
export const getSession = () => getContext<Session>(KEY);
export const SESSION_CONTEXT_KEY = KEY;
