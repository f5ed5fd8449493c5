import { browser } from "wxt/browser";
import { defineBackground } from "wxt/utils/define-background";
import { RelayConnection } from "../src/worker/relay-connection";
import { PANEL_PORT } from "../src/worker/messages";
import type { PanelMessage, WorkerMessage } from "../src/worker/messages";
import { buttonAction, parseNotificationId } from "../src/worker/notify";
import { openPanel, openPanelOnActionClick } from "../src/worker/side-panel";
import { focusItem, settingsItem, tokenItem, type Focus } from "../src/worker/storage-items";

/** Chrome's shortest alarm: a safety net that wakes a stopped worker to reconnect. */
const ALARM = "loopback.ensure";
const ALARM_MINUTES = 0.5;

export default defineBackground(() => {
  const connection = new RelayConnection();
  let windowId: number | undefined;

  // Listeners are registered synchronously, so events that woke the worker reach them.
  browser.runtime.onMessage.addListener((message: WorkerMessage) => {
    if (message?.type === "wake") return connection.ensure().then(() => ({ ok: true }));
    if (message?.type === "reconnect") return connection.restart().then(() => ({ ok: true }));
    return undefined;
  });

  // An open side panel holds a port: connecting it starts a stopped worker, which reconnects at once.
  browser.runtime.onConnect.addListener((port) => {
    if (port.name === PANEL_PORT) void connection.ensure();
  });

  browser.alarms.onAlarm.addListener((alarm) => {
    if (alarm.name === ALARM) void connection.ensure();
  });

  // A new token or relay means a new connection; a change of the notify switch does not.
  tokenItem.watch(() => void connection.restart());
  settingsItem.watch((next, previous) => {
    if (next?.relayUrl !== previous?.relayUrl) void connection.restart();
  });

  browser.windows.onFocusChanged.addListener((id) => {
    if (id !== browser.windows.WINDOW_ID_NONE) windowId = id;
  });

  /** Opens the ask in the panel: called while the click is handled, as opening a panel must be. */
  function openAsk(notificationId: string, askId: string) {
    openPanel(windowId).catch((e) => console.warn("Loopback: could not open the side panel", e));
    const focus: Focus = { askId, at: Date.now() };
    void focusItem.setValue(focus);
    void browser.runtime.sendMessage({ type: "open-ask", askId } satisfies PanelMessage).catch(() => {});
    void browser.notifications.clear(notificationId);
  }

  browser.notifications.onClicked.addListener((notificationId) => {
    const parsed = parseNotificationId(notificationId);
    if (parsed) openAsk(notificationId, parsed.askId);
  });

  // Chrome only: Firefox's notifications have no buttons.
  browser.notifications.onButtonClicked?.addListener((notificationId, buttonIndex) => {
    const parsed = parseNotificationId(notificationId);
    if (!parsed) return;
    const action = buttonAction(parsed.layout, buttonIndex);
    if (action === "open") openAsk(notificationId, parsed.askId);
    else if (action === "reply") void connection.answerFromNotification(notificationId, buttonIndex);
  });

  // A fresh install has no relay to talk to: its first page is the one that connects it.
  browser.runtime.onInstalled.addListener(({ reason }) => {
    if (reason === "install") void browser.runtime.openOptionsPage();
  });

  openPanelOnActionClick();
  void browser.alarms.create(ALARM, { periodInMinutes: ALARM_MINUTES });
  void browser.windows.getLastFocused().then((w) => (windowId ??= w.id)).catch(() => {});
  void connection.ensure();
});
