import { browser } from "wxt/browser";

const action = () => browser.action ?? (browser as unknown as { browserAction: typeof browser.action }).browserAction;

/** The number of asks waiting on the person, or a warning mark when the connection is refused for good. */
export async function showBadge(count: number, trouble = false): Promise<void> {
  const text = trouble ? "!" : count > 0 ? String(count) : "";
  await action().setBadgeText({ text });
  await action().setBadgeBackgroundColor({ color: trouble ? "#c9252d" : "#3d5bd9" });
}
