import type { Whoami } from "@loopback/shared/generated/types";
import type { ListedAsk } from "../relay/listed-ask";
import { browser } from "wxt/browser";
import { storage } from "wxt/utils/storage";
import type { StreamState } from "../relay/event-stream";
import type { RevisionGap } from "../relay/revision";

// Everything lives in browser.storage.local: the worker writes, the pages read and listen.
// The token is stored here and only here (never in page storage), and is never logged.

export interface Settings {
  relayUrl: string;
  notify: boolean;
}

export interface Status {
  stream: StreamState | null;
  revision: RevisionGap;
  who: Whoami | null;
}

/** An ask the person clicked a notification for, for the side panel to open. */
export interface Focus {
  askId: string;
  at: number;
}

/** Which relay the stored asks came from, and when they were last synced with it. */
export interface Index {
  relay: string;
  syncedAt: string;
}

export const DEFAULT_SETTINGS: Settings = { relayUrl: "", notify: true };
const NO_STATUS: Status = { stream: null, revision: "same", who: null };

export const settingsItem = storage.defineItem<Partial<Settings>>("local:settings", { fallback: DEFAULT_SETTINGS });
export const tokenItem = storage.defineItem<string>("local:token", { fallback: "" });
export const statusItem = storage.defineItem<Partial<Status>>("local:status", { fallback: NO_STATUS });
/** Written once the first snapshot is stored: until then the stored asks are not a live set. */
export const indexItem = storage.defineItem<Index>("local:index");
export const focusItem = storage.defineItem<Focus>("local:focus");

/** Each ask has a key of its own, so an event rewrites one ask and the side panel hears only what changed. */
export const ASK_PREFIX = "ask:";
export const askKey = (id: string) => `${ASK_PREFIX}${id}`;

/** The settings, with defaults for what an older version did not store. */
export async function readSettings(): Promise<Settings> {
  return { ...DEFAULT_SETTINGS, ...(await settingsItem.getValue()) };
}

export async function readStatus(): Promise<Status> {
  return { ...NO_STATUS, ...(await statusItem.getValue()) };
}

export const readToken = () => tokenItem.getValue();
export const writeSettings = (settings: Settings) => settingsItem.setValue(settings);
export const writeToken = (token: string) => tokenItem.setValue(token);
export const writeStatus = (status: Status) => statusItem.setValue(status);

/** Every stored ask, by id. */
export async function readAsks(): Promise<Map<string, ListedAsk>> {
  const all = (await browser.storage.local.get(null)) as Record<string, unknown>;
  const asks = new Map<string, ListedAsk>();
  for (const [key, value] of Object.entries(all)) if (key.startsWith(ASK_PREFIX)) asks.set(key.slice(ASK_PREFIX.length), value as ListedAsk);
  return asks;
}
