import type { Ask, Whoami } from "@loopback/shared/generated/types";
import { browser } from "wxt/browser";
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

export const KEYS = { settings: "settings", token: "token", status: "status", index: "index", focus: "focus" } as const;
export const ASK_PREFIX = "ask:";
export const askKey = (id: string) => `${ASK_PREFIX}${id}`;

export const DEFAULT_SETTINGS: Settings = { relayUrl: "", notify: true };

const local = () => browser.storage.local;

export async function readSettings(): Promise<Settings> {
  const { settings } = (await local().get(KEYS.settings)) as { settings?: Partial<Settings> };
  return { relayUrl: settings?.relayUrl ?? DEFAULT_SETTINGS.relayUrl, notify: settings?.notify ?? DEFAULT_SETTINGS.notify };
}

export async function writeSettings(settings: Settings): Promise<void> {
  await local().set({ [KEYS.settings]: settings });
}

export async function readToken(): Promise<string> {
  const { token } = (await local().get(KEYS.token)) as { token?: string };
  return token ?? "";
}

export async function writeToken(token: string): Promise<void> {
  await local().set({ [KEYS.token]: token });
}

export async function readStatus(): Promise<Status> {
  const { status } = (await local().get(KEYS.status)) as { status?: Partial<Status> };
  return { stream: status?.stream ?? null, revision: status?.revision ?? "same", who: status?.who ?? null };
}

export async function writeStatus(status: Status): Promise<void> {
  await local().set({ [KEYS.status]: status });
}

/** Every stored ask, by id. */
export async function readAsks(): Promise<Map<string, Ask>> {
  const all = (await local().get(null)) as Record<string, unknown>;
  const asks = new Map<string, Ask>();
  for (const [key, value] of Object.entries(all)) if (key.startsWith(ASK_PREFIX)) asks.set(key.slice(ASK_PREFIX.length), value as Ask);
  return asks;
}
