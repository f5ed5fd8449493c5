// What the relay keeps, as the services will ask for it: one asynchronous interface per concern, with
// one implementation over the SQLite file (one relay) and one over PostgreSQL (any number of replicas
// on one database). The shared records read the database every time, since with replicas another
// process may have written since; only on SQLite, one relay per file, are asks and token lookups held
// in memory in front of them (asks/cached-asks.ts, sqlite/cached-tokens.ts).
import type { Ask } from "@loopback/shared/generated/types";
import type { Caller, TokenKind } from "./caller.ts";
import type { DatabaseReach } from "./database-reach.ts";
import type { Committed } from "./dialect.ts";
export type { Committed };
import type { DiskSpace } from "./disk-space.ts";
import type { mcpSessions, pushDevices, tasks, uploads, waitingCalls } from "./sqlite/schema.ts";

/** An ask as stored, with what only the relay needs to know about it. */
export interface VersionedAsk {
  spaceId: string;
  ask: Ask;
  /** How many of the person's turns the agent has been handed. */
  delivered: number;
  /** When the latest of them was handed over (ISO time), if ever. */
  deliveredAt: string | null;
  /** Counts the ask's changes: a change decided on this version commits only while it is still current. */
  version: number;
}

/** How a change decided on an ask's version went: stored, or another writer changed the ask first. */
export type AppendOutcome = "appended" | "not_your_turn";

/** A per-token cap checked in the same step as the insert it allows: at most `max` held at `now` (ISO time). */
export interface HeldCap {
  max: number;
  now: string;
}

/** Caps on open asks, counted in the same step as the insert: per token (`tokenId`'s) and per space. */
export interface OpenAskCap {
  tokenId: string;
  maxPerToken: number;
  maxPerSpace: number;
}

/** How storing a new ask went: stored, or refused because its token's or its space's open asks are at their cap. */
export type InsertOutcome = "inserted" | "token_full" | "space_full";

export interface AskRecords {
  /**
   * Stores a new ask at version 0, and with it the record of the call that follows it, when given.
   * Not waited onto the disk: nobody has been told of it yet. `committed` runs the moment it is
   * stored, before the promise settles with `inserted`; never for an ask refused at a cap.
   */
  insert(spaceId: string, ask: Ask, fingerprint?: string, call?: CallRow, cap?: OpenAskCap, committed?: Committed): Promise<InsertOutcome>;
  /**
   * Appends `after`'s new turns and moves the ask to its state, in one durable transaction, if the ask
   * is still at `before.version`; otherwise writes nothing and says it was not this writer's turn.
   * With `handedOverAt` (ISO time), the same transaction records every turn of the person's as handed
   * over then (`claimDelivery`'s record): a call here waits to take the reply this change adds.
   * `committed` runs the moment the turn is stored, before the promise settles with `appended`.
   */
  append(before: VersionedAsk, after: Ask, handedOverAt?: string, committed?: Committed): Promise<AppendOutcome>;
  /** Records the person's turns up to `next` as handed over, if nobody moved the count from `expected`. */
  claimDelivery(askId: string, expected: number, next: number, at: string): Promise<boolean>;
  get(id: string): Promise<VersionedAsk | undefined>;
  /**
   * The newest ask opened with this fingerprint that an agent asking again should pick up (see
   * docs/design/waiting.md): `reclaimed` says its reply was already handed over, since `reclaimSince`.
   */
  findResumable(spaceId: string, fingerprint: string, reclaimSince: string): Promise<{ stored: VersionedAsk; reclaimed: boolean } | undefined>;
  /** Every fingerprint an ask was stored with, in every space. */
  fingerprints(): Promise<string[]>;
  /** Every open ask of a space, newest first. */
  listOpen(spaceId: string, limit?: number, after?: { createdAt: string; id: string }): Promise<Ask[]>;
  /** Which asks a snapshot lists, without their bodies: every open ask newest first, then the `recent` most recently closed. */
  listHeads(spaceId: string, recent: number): Promise<{ open: AskHead[]; recent: AskHead[] }>;
  /** The asks of these ids, whole, in no particular order. */
  listByIds(ids: string[]): Promise<VersionedAsk[]>;
  /** Closed asks of a space, most recently closed first, closed before `before` when given. */
  listClosed(spaceId: string, limit: number, before?: string): Promise<Ask[]>;
}

/** An ask's id and how many times it changed: enough to tell whether a summary of it is current. */
export interface AskHead {
  id: string;
  version: number;
}

export interface TokenListing {
  id: string;
  kind: TokenKind;
  person: string;
  space: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface TokenRecords {
  /** The caller a token hash stands for, unless it was revoked, as the database holds it now. */
  callerByHash(hash: string): Promise<Caller | undefined>;
  /**
   * Stores a token hash for a person, creating the space and the person when missing (two writers
   * creating the same at once share one), and says which it created.
   */
  create(input: { space: string; person: string; kind: TokenKind; tokenId: string; hash: string; at: string }): Promise<{ caller: Caller; created: { space: boolean; person: boolean } }>;
  list(): Promise<TokenListing[]>;
  /** Revokes a token by its id; false when there is no such token still active. */
  revoke(tokenId: string, at: string): Promise<boolean>;
  /** Which of these token ids are revoked, by any process. */
  revokedAmong(tokenIds: string[]): Promise<string[]>;
  isEmpty(): Promise<boolean>;
}

export type UploadRow = typeof uploads.$inferSelect;

/** The most image bytes one token, and one space, may hold stored. */
export interface UploadQuota {
  tokenId: string | null;
  spaceId: string;
  tokenBytes: number;
  spaceBytes: number;
}

export interface UploadRecords {
  /** Issues a ticket; with `cap`, only while its token holds fewer unused ones (false: refused). */
  issue(row: Pick<UploadRow, "id" | "spaceId" | "tokenHash" | "tokenId" | "contentType" | "maxBytes" | "expiresAt">, cap?: HeldCap): Promise<boolean>;
  /** Unused tickets a token holds that are still good at `now` (ISO time): they are capped per token. */
  unusedHeldBy(tokenId: string, now: string): Promise<number>;
  /** The ticket behind an upload URL, with when its token was revoked, if it was. */
  ticket(spaceId: string, tokenHash: string): Promise<(Pick<UploadRow, "id" | "tokenId" | "contentType" | "maxBytes" | "expiresAt" | "storedAt"> & { revokedAt: string | null }) | undefined>;
  /**
   * Stores the image and spends the ticket in one statement; false when another upload spent it
   * first, or the quota's name when the bytes its token or space hold would pass it.
   */
  store(id: string, bytes: Uint8Array, at: string, quota: UploadQuota): Promise<boolean | "token" | "space">;
  /** Marks stored images of this space as named by an ask, so they are kept. */
  referenced(spaceId: string, ids: string[], at: string): Promise<void>;
  /** Deletes images stored before `before` (ISO time) that no ask ever named; returns how many. */
  sweepOrphans(before: string): Promise<number>;
  read(spaceId: string, id: string): Promise<{ contentType: string; bytes: Uint8Array } | undefined>;
  /** The ids among `ids` that are stored images of this space. */
  storedAmong(spaceId: string, ids: string[]): Promise<string[]>;
  /** Deletes tickets that expired unused by `now` (ISO time); returns how many. */
  sweepExpired(now: string): Promise<number>;
}

export type SessionRow = typeof mcpSessions.$inferSelect;

export interface SessionRecords {
  /** Stores a session; with `max`, only while its token holds fewer (false: refused). */
  insert(row: SessionRow, max?: number): Promise<boolean>;
  get(id: string): Promise<SessionRow | undefined>;
  touch(id: string, at: string): Promise<void>;
  delete(id: string): Promise<void>;
  countForToken(tokenHash: string): Promise<number>;
  /** Forgets sessions nobody used since `before`; returns their ids. */
  deleteIdle(before: string): Promise<string[]>;
  /** Ends every session of a token (it was revoked); returns their ids. */
  deleteForToken(tokenHash: string): Promise<string[]>;
  /** Up to `limit` of a token's sessions with no call recorded, least recently used first. */
  leastRecentlyUsed(tokenHash: string, limit: number): Promise<string[]>;
}

export type CallRow = typeof waitingCalls.$inferSelect;

export interface CallRecords {
  /** Records a call once its tool has opened or found its ask: which ask, from which turn. */
  insert(row: CallRow): Promise<void>;
  get(id: string): Promise<CallRow | undefined>;
  /** Forgets calls begun before `before`; returns how many. */
  deleteBefore(before: string): Promise<number>;
  deleteForSessions(sessionIds: string[]): Promise<void>;
  /** Ends the record of a session's call by its JSON-RPC request id (as JSON): the client cancelled it. */
  deleteForRequest(sessionId: string, requestId: string): Promise<void>;
}

export type TaskRow = typeof tasks.$inferSelect;

export interface TaskRecords {
  insert(row: TaskRow): Promise<void>;
  /** A space's task, unless it is past its time to live at `nowMs`. */
  get(spaceId: string, id: string, nowMs: number): Promise<TaskRow | undefined>;
  update(spaceId: string, id: string, set: Partial<TaskRow>): Promise<TaskRow | undefined>;
  /** A page of a space's tasks (those `tokenId` may see, when given) in id order, after `cursor`; one more than `limit` tells there is a next. */
  list(spaceId: string, limit: number, cursor?: string, tokenId?: string): Promise<TaskRow[]>;
  /** Tasks a token created that still wait on an open ask (working, within their time to live at `nowMs`). */
  workingFor(tokenId: string, nowMs: number): Promise<number>;
  /** Forgets tasks past their time to live at `nowMs`; returns how many. */
  sweep(nowMs: number): Promise<number>;
}

export interface TicketRecords {
  /** Stores an event ticket's hash for the token it was issued to, and the revision its socket speaks. */
  issue(hash: string, tokenId: string, revision: string, expiresAt: string, cap?: HeldCap): Promise<boolean>;
  /** Unused tickets a token holds that are still good at `now`: they are capped per token. */
  heldBy(tokenId: string, now: string): Promise<number>;
  /**
   * The caller a ticket was issued to, once, on whichever replica redeems it; nothing once expired or
   * once its token is revoked.
   */
  redeem(hash: string, now: string): Promise<{ caller: Caller; revision: string } | undefined>;
  sweep(now: string): Promise<void>;
}

/** Refused tokens per key (a client address), within a window, shared by every replica. */
export interface FailureCountRecords {
  /** Failures of `key` within the window that ends at `nowMs`. */
  count(key: string, nowMs: number): Promise<number>;
  /** Counts one failure in the current window, or starts a new one; returns the count. */
  add(key: string, nowMs: number): Promise<number>;
  /** Forgets keys whose window ended before `nowMs`. */
  sweep(nowMs: number): Promise<void>;
}

export type DeviceRow = typeof pushDevices.$inferSelect;
export interface DeviceListing {
  id: string;
  space: string;
  person: string;
  name: string;
  endpoint: string;
  tokenId: string | null;
  createdAt: string;
  lastPushAt: string | null;
}

export interface PushRecords {
  /**
   * The relay's VAPID key pair: when there is none, `make`'s is stored, and every replica gets the one
   * stored. Made only then: making one loads web push, which a relay otherwise loads at its first push.
   */
  keys(make: () => Promise<{ publicKey: string; privateKey: string }>, at: string): Promise<{ publicKey: string; privateKey: string }>;
  /** A person's devices, oldest first. */
  devicesOf(personId: string): Promise<DeviceRow[]>;
  /**
   * Adds a device, or renews the person's one with its endpoint (a browser subscribing again is the same
   * device), keeping its stored loudness unless `renewLoudness`. A new device past `maxPerPerson` is
   * not added: "too_many".
   */
  saveDevice(row: Omit<DeviceRow, "lastPushAt">, renewLoudness: boolean, maxPerPerson: number): Promise<DeviceRow | "too_many">;
  setLoudness(personId: string, id: string, loudness: string): Promise<DeviceRow | undefined>;
  /** Removes a person's device; false when they have no such device. */
  removeDevice(personId: string, id: string): Promise<boolean>;
  devicesInSpace(spaceId: string): Promise<DeviceRow[]>;
  /** Removes a device by its id alone (the push service said it is gone, or the operator removed it); false when there is none. */
  forgetDevice(id: string): Promise<boolean>;
  /** Every device, with whose it is, for the operator's CLI. */
  listDevices(): Promise<DeviceListing[]>;
  pushed(id: string, at: string): Promise<void>;
  /** Claims the push about an ask's turn: true for one claimer, on whichever replica saw it first. */
  claimNotice(askId: string, turn: number, at: string): Promise<boolean>;
}

/** What a retention run removed: the asks (by id, so a cache in front of the store forgets them), images and push notices. */
export interface Pruned {
  asks: string[];
  images: number;
  notices: number;
}

export interface UpkeepRecords {
  /** How many asks stand open, by whose move it is. */
  openAsks(): Promise<{ status: "awaiting_human" | "awaiting_agent"; count: number }[]>;
  /**
   * Deletes asks closed before `closedBefore` with their threads, images stored before then that no
   * remaining ask shows, and push notices sent before `noticesBefore`. Never an open ask.
   */
  prune(closedBefore: string, noticesBefore: string): Promise<Pruned>;
}

/** A replica began or stopped following an ask (a call or a task waits on it there). */
export interface FollowChange {
  askId: string;
  replica: string;
  following: boolean;
}

export interface FollowRecords {
  /** This replica follows an ask from now on, or no longer does; the other replicas are told. */
  set(askId: string, following: boolean, at: string): Promise<void>;
  /** What these replicas follow. */
  following(replicas: string[]): Promise<{ askId: string; replica: string }[]>;
  /** The replicas holding a connection to the database now, this one included. */
  alive(): Promise<string[]>;
  /** Forgets what replicas other than these followed (they are gone). */
  forgetAllBut(alive: string[]): Promise<void>;
  /** This replica stops: it follows nothing. */
  leave(): Promise<void>;
}

/** An ask changed on some replica: which, where, its version after the change, and who wrote it. */
export interface AskChange {
  askId: string;
  spaceId: string;
  version: number;
  replica: string;
  /**
   * The ask as this change left it, beyond its opening and thread: how many turns its thread had, its
   * status and times. A replica that reads the ask later (and may find later turns) shows this version.
   */
  turns: number;
  status: Ask["status"];
  updatedAt: string;
  closedAt?: string;
}

export interface Store {
  /** Which store this is; shown at start and in tests. */
  readonly kind: "sqlite" | "postgres";
  /** This process's name among the replicas: changes it commits carry it. */
  readonly replica: string;
  readonly asks: AskRecords;
  readonly tokens: TokenRecords;
  readonly uploads: UploadRecords;
  readonly sessions: SessionRecords;
  readonly calls: CallRecords;
  readonly tasks: TaskRecords;
  readonly tickets: TicketRecords;
  readonly failures: FailureCountRecords;
  readonly push: PushRecords;
  readonly follows: FollowRecords;
  readonly upkeep: UpkeepRecords;
  /**
   * A number that moves whenever a token may have been revoked, by any process, without a query: what
   * lets the relay check its open sockets' tokens before sending, only when there is something to check.
   */
  tokensVersion(): number;
  /**
   * Calls `onChange` for every ask change another replica commits, in commit order (so in order per
   * ask); `onReady` once listening, and again after every reconnection, when changes may have been
   * missed and whoever waits should read again. Absent where nobody else writes asks: one relay owns
   * a SQLite file.
   */
  listen?(onChange: (change: AskChange) => void, onReady?: () => void, onFollow?: (change: FollowChange) => void): Promise<{ close(): Promise<void> }>;
  /** Whether a database server can be reached now, for a store that has one (PostgreSQL). */
  readonly reach?: DatabaseReach;
  /** Whether the SQLite file's filesystem has room to write, for a store kept in a file. */
  readonly space?: DiskSpace;
  close(): Promise<void>;
}

/** A store replicas share: another replica's changes can be listened to. */
export type SharedStore = Store & Required<Pick<Store, "listen">>;
