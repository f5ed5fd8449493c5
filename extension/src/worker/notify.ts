import type { Ask, Reply } from "@loopback/shared/generated/types";
import { browser } from "wxt/browser";
import { KIND_LABEL } from "../base/ask-labels";
import { askTitleText } from "../blocks/inline-markdown";
import { isWhole, type ListedAsk } from "../relay/listed-ask";

/**
 * What a notification's buttons do. Chrome allows two: a question's two choices, a review's
 * Approve and Open, an approval's Allow and Deny, or Open alone. The layout is part of the notification's id, so a worker that
 * Chrome stopped and woke for the click knows what was pressed before it has read anything.
 */
export type Layout = "choices" | "review" | "approval" | "open";

const PREFIX = "ask:";
// Firefox shows no buttons on notifications: a click on the notification opens the ask.
const HAS_BUTTONS = !import.meta.env.FIREFOX;

/** A question listed by its summary shows Open alone: its choices are in the body, not read yet. */
export function layoutOf(ask: ListedAsk): Layout {
  if (isWhole(ask) && ask.kind === "question" && ask.prompt.options.length === 2 && !ask.prompt.multiple) return "choices";
  if (ask.kind === "approval") return "approval";
  return ask.kind === "review" ? "review" : "open";
}

export const notificationId = (ask: ListedAsk) => `${PREFIX}${ask.id}:${layoutOf(ask)}`;

export function parseNotificationId(id: string): { askId: string; layout: Layout } | null {
  const m = /^ask:([^:]+):(choices|review|approval|open)$/.exec(id);
  return m ? { askId: m[1]!, layout: m[2] as Layout } : null;
}

export const askIdOfNotification = (id: string) => parseNotificationId(id)?.askId ?? null;

function buttons(ask: ListedAsk): { title: string }[] {
  const layout = layoutOf(ask);
  if (layout === "choices" && isWhole(ask) && ask.kind === "question") return ask.prompt.options.map((o) => ({ title: o.label }));
  if (layout === "approval") return [{ title: "Allow" }, { title: "Deny" }];
  return layout === "review" ? [{ title: "Approve" }, { title: "Open" }] : [{ title: "Open" }];
}

/** What pressing button `index` of a notification with `layout` does: send a reply, or open the ask. */
export function buttonAction(layout: Layout, index: number): "reply" | "open" | null {
  if (layout === "choices" || layout === "approval") return index === 0 || index === 1 ? "reply" : null;
  if (layout === "review") return index === 0 ? "reply" : index === 1 ? "open" : null;
  return index === 0 ? "open" : null;
}

/**
 * The reply button `index` of a notification laid out as `layout` sends on `ask`, or null when that
 * button sends none: the layout the notification showed, not the one the ask read since would get.
 */
export function replyOfButton(ask: Ask, index: number, layout = layoutOf(ask)): Reply | null {
  if (buttonAction(layout, index) !== "reply") return null;
  if (ask.kind === "question" && layout === "choices") return { outcome: "answered", selected: [ask.prompt.options[index]!.label] };
  if (ask.kind === "approval") return index === 0 ? { outcome: "allowed" } : { outcome: "denied" };
  return ask.kind === "review" ? { outcome: "approved" } : null;
}

/** Tells the person about a new ask: where from, what kind, and what it asks. */
export async function notifyAsk(ask: ListedAsk): Promise<void> {
  const from = [ask.project, ask.raisedBy?.name].filter(Boolean).join(" · ");
  await browser.notifications.create(notificationId(ask), {
    type: "basic",
    iconUrl: browser.runtime.getURL("/icon/128.png"),
    title: `${KIND_LABEL[ask.kind]}${from ? ` · ${from}` : ""}`,
    message: askTitleText(ask),
    ...(ask.client ? { contextMessage: ask.client } : {}),
    ...(HAS_BUTTONS ? { buttons: buttons(ask) } : {}),
  });
}

/** Says on the notification itself that a button's reply did not go through, and why. */
export async function notifyNotSent(notificationId: string, why: string): Promise<void> {
  await browser.notifications.update(notificationId, { message: `Not sent: ${why}` });
}

export async function clearNotification(ask: ListedAsk): Promise<void> {
  await browser.notifications.clear(notificationId(ask));
}

/** Clears the notifications of every ask that is no longer the person's move: answered elsewhere. */
export async function clearAnsweredElsewhere(awaiting: Set<string>): Promise<void> {
  const shown = Object.keys(await browser.notifications.getAll());
  await Promise.all(
    shown.filter((id) => {
      const askId = askIdOfNotification(id);
      return askId !== null && !awaiting.has(askId);
    }).map((id) => browser.notifications.clear(id)),
  );
}
