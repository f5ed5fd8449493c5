/** What pages say to the worker. */
export type WorkerMessage =
  /** A page opened or came back: make sure the socket is up (this also wakes a stopped worker). */
  | { type: "wake" }
  /** The settings changed: connect again from scratch. */
  | { type: "reconnect" };

/** What the worker says to an open side panel. */
export type PanelMessage = { type: "open-ask"; askId: string };

/** The port an open side panel holds to the worker, named so the worker knows it. */
export const PANEL_PORT = "loopback.panel";
