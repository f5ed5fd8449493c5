/** What pages say to the worker. */
export type WorkerMessage =
  /** A page opened or came back: make sure the socket is up (this also wakes a stopped worker). */
  | { type: "wake" }
  /** The settings changed: connect again from scratch. */
  | { type: "reconnect" };

/** What the worker says to an open side panel. */
export type PanelMessage = { type: "open-ask"; askId: string };
