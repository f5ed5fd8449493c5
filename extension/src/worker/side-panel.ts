import { browser } from "wxt/browser";

type SidePanelApi = { open(options: { windowId: number }): Promise<void>; setPanelBehavior(b: { openPanelOnActionClick: boolean }): Promise<void> };
type SidebarApi = { open(): Promise<void>; toggle(): Promise<void> };

const sidePanel = () => (browser as unknown as { sidePanel?: SidePanelApi }).sidePanel;
const sidebar = () => (browser as unknown as { sidebarAction?: SidebarApi }).sidebarAction;

/** The toolbar button opens the panel: Chrome's side panel, or Firefox's sidebar. */
export function openPanelOnActionClick(): void {
  const panel = sidePanel();
  if (panel) {
    panel.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
    return;
  }
  const action = browser.action ?? (browser as unknown as { browserAction: typeof browser.action }).browserAction;
  action.onClicked.addListener(() => void sidebar()?.toggle());
}

/**
 * Opens the panel from a click the person made (a notification). Both browsers only allow this
 * while the click is being handled, so it is called before anything is awaited.
 */
export function openPanel(windowId: number | undefined): Promise<void> {
  const panel = sidePanel();
  if (panel && windowId !== undefined) return panel.open({ windowId });
  if (panel) return browser.windows.getLastFocused().then((w) => panel.open({ windowId: w.id! }));
  return sidebar()?.open() ?? Promise.resolve();
}
