import type { Ask } from "@loopback/shared/generated/types";
import { browser } from "wxt/browser";
import { KIND_LABEL, askTitleText } from "../inbox/asks";

const PREFIX = "ask:";

/** Tells the person about a new ask: where from, what kind, and what it asks. */
export async function notifyAsk(ask: Ask): Promise<void> {
  const from = [ask.project, ask.raisedBy?.name].filter(Boolean).join(" · ");
  await browser.notifications.create(PREFIX + ask.id, {
    type: "basic",
    iconUrl: browser.runtime.getURL("/icon/128.png"),
    title: `${KIND_LABEL[ask.kind]}${from ? ` · ${from}` : ""}`,
    message: askTitleText(ask),
    ...(ask.client ? { contextMessage: ask.client } : {}),
  });
}

export async function clearNotification(askId: string): Promise<void> {
  await browser.notifications.clear(PREFIX + askId);
}

export const askIdOfNotification = (id: string) => (id.startsWith(PREFIX) ? id.slice(PREFIX.length) : null);
