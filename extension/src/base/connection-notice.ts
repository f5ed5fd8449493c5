// What the open ask says while the relay cannot be reached: one set of words, read by the ask's
// waiting line and beside its send buttons alike.
import type { StreamState } from "../relay/event-stream";

export interface ConnectionNotice {
  /** The connection in a line: in place of whether the agent waits, which only the relay knows. */
  headline: string;
  /** What a reply sent now does, said beside the send buttons. */
  forReply: string;
}

const KEPT = "A reply you send now is kept, and sent when it is back.";

/** The notice for a connection that is not live, or null when there is nothing to say. */
export function connectionNotice(connected: boolean, stream: StreamState | null): ConnectionNotice | null {
  if (!connected || stream?.state === "live") return null;
  if (stream?.state === "stopped") {
    // A rolled-back relay has a banner of its own, with what to do about it.
    return stream.kind === "unauthorized" ? { headline: "The relay no longer accepts your token", forReply: "Nothing can be sent until you connect again." } : null;
  }
  return { headline: stream?.state === "retrying" ? "Can't reach the relay — reconnecting" : "Connecting to the relay", forReply: KEPT };
}
