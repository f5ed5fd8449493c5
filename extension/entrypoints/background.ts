import { browser } from "wxt/browser";
import { defineBackground } from "wxt/utils/define-background";
import { Connector } from "../src/extension/worker";
import type { PanelMessage, WorkerMessage } from "../src/extension/messages";
import { buttonAction, parseNotificationId } from "../src/extension/notify";
import { openPanel, openPanelOnActionClick } from "../src/extension/side-panel";
import { KEYS, type Focus, type Settings } from "../src/extension/store";

/** Chrome's shortest alarm: a safety net that wakes a stopped worker to reconnect. */
const ALARM = "loopback.ensure";
const ALARM_MINUTES = 0.5;

export default defineBackground(() => {
  const connector = new Connector();
  let windowId: number | undefined;

  // Listeners are registered synchronously, so events that woke the worker reach them.
  browser.runtime.onMessage.addListener((message: WorkerMessage) => {
    if (message?.type === "wake") return connector.ensure().then(() => ({ ok: true }));
    if (message?.type === "reconnect") return connector.restart().then(() => ({ ok: true }));
    return undefined;
  });

  browser.alarms.onAlarm.addListener((alarm) => {
    if (alarm.name === ALARM) void connector.ensure();
  });

  browser.storage.onChanged.addListener((changes, area) => {
    if (area === "local" && (KEYS.settings in changes || KEYS.token in changes)) {
      const relayOf = (value: unknown) => (value as Partial<Settings> | undefined)?.relayUrl;
      const settings = changes[KEYS.settings];
      const relayChanged = KEYS.token in changes || relayOf(settings?.oldValue) !== relayOf(settings?.newValue);
      if (relayChanged) void connector.restart();
    }
  });

  browser.windows.onFocusChanged.addListener((id) => {
    if (id !== browser.windows.WINDOW_ID_NONE) windowId = id;
  });

  /** Opens the ask in the panel: called while the click is handled, as opening a panel must be. */
  function openAsk(notificationId: string, askId: string) {
    openPanel(windowId).catch((e) => console.warn("Loopback: could not open the side panel", e));
    const focus: Focus = { askId, at: Date.now() };
    void browser.storage.local.set({ [KEYS.focus]: focus });
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
    else if (action === "reply") void connector.answerFromNotification(notificationId, buttonIndex);
  });

  // A fresh install has no relay to talk to: its first page is the one that connects it.
  browser.runtime.onInstalled.addListener(({ reason }) => {
    if (reason === "install") void browser.runtime.openOptionsPage();
  });

  openPanelOnActionClick();
  void browser.alarms.create(ALARM, { periodInMinutes: ALARM_MINUTES });
  void browser.windows.getLastFocused().then((w) => (windowId ??= w.id)).catch(() => {});
  void connector.ensure();
});
