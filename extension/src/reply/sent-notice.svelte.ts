import type { Reply } from "@loopback/shared/generated/types";

/** How long "Sent" stays up after a reply reached the relay, in ms. */
export const SENT_NOTICE_MS = 6_000;

/** What a reply does, as the person reads it while it is held and once it is sent. */
export const REPLY_WORDS: Record<Reply["outcome"], { holding: string; sent: string; kept: string }> = {
  approved: { holding: "Approving", sent: "Approved", kept: "your approval of" },
  changes_requested: { holding: "Requesting changes", sent: "Changes requested", kept: "your changes requested on" },
  dismissed: { holding: "Dismissing", sent: "Dismissed", kept: "your dismissal of" },
  answered: { holding: "Sending your answer", sent: "Answer sent", kept: "your answer to" },
  responded: { holding: "Sending your replies", sent: "Replies sent", kept: "your replies on" },
  follow_up: { holding: "Asking back", sent: "Asked back", kept: "your question back on" },
  allowed: { holding: "Allowing", sent: "Allowed", kept: "your permission for" },
  denied: { holding: "Denying", sent: "Denied", kept: "your refusal of" },
};

export interface SentNote {
  askId: string;
  title: string;
  what: string;
}

/**
 * The last reply the relay took, said where the person looks (the dock of whatever ask shows next),
 * so a send never passes without a word before the next ask opens.
 */
class SentNotice {
  last = $state<SentNote | null>(null);
  #timer: ReturnType<typeof setTimeout> | undefined;

  record(askId: string, title: string, reply: Reply): void {
    clearTimeout(this.#timer);
    this.last = { askId, title, what: REPLY_WORDS[reply.outcome].sent };
    this.#timer = setTimeout(() => (this.last = null), SENT_NOTICE_MS);
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.last = null;
  }
}

export const sentNotice = new SentNotice();
