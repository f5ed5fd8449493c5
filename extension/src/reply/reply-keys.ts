import { getContext, setContext } from "svelte";

/** What the open ask's reply form does on the inbox's single-key shortcuts. */
export interface ReplyActions {
  choose?: (index: number) => void;
  approve?: () => void;
  dismiss?: () => void;
  send?: () => void;
  focusText?: () => void;
  /** A briefing's next (1) or previous (-1) point. */
  movePoint?: (step: number) => void;
  /** Marks the briefing point the person is on resolved in the draft, or not. */
  resolvePoint?: () => void;
  /** Takes back a reply still in its undo window. */
  undo?: () => void;
}

/** One slot the shown reply form fills, and the keyboard handler reads. */
export class ReplyKeys {
  current: ReplyActions | null = null;

  register(actions: ReplyActions): () => void {
    this.current = actions;
    return () => {
      if (this.current === actions) this.current = null;
    };
  }
}

const KEY = Symbol("loopback.replyKeys");
export const REPLY_KEYS_CONTEXT_KEY = KEY;
export const setReplyKeys = (keys: ReplyKeys) => setContext(KEY, keys);
export const getReplyKeys = () => getContext<ReplyKeys | undefined>(KEY);

/** The send shortcut as this machine's keyboard spells it. */
export const SEND_KEY = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform) ? "⌘↵" : "Ctrl ↵";
