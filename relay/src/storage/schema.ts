// The relay's tables. Change a table here and the same way in `pg-schema.ts` (a test compares them),
// then run `npx drizzle-kit generate --name WHAT` and `npx drizzle-kit generate --config
// drizzle.pg.config.ts --name WHAT` in relay/ to write each store's numbered migration, applied at start.
import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const spaces = sqliteTable("spaces", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  createdAt: text("created_at").notNull(),
});

/** People, each in one space. An agent acts for the person whose token it holds. */
export const people = sqliteTable(
  "people",
  {
    id: text("id").primaryKey(),
    spaceId: text("space_id").notNull().references(() => spaces.id),
    name: text("name").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("people_space_name").on(t.spaceId, t.name)],
);

/** Tokens are stored only as SHA-256 hashes; the token itself is shown once, when created. */
export const tokens = sqliteTable("tokens", {
  id: text("id").primaryKey(),
  hash: text("hash").notNull().unique(),
  personId: text("person_id").notNull().references(() => people.id),
  kind: text("kind", { enum: ["person", "agent"] }).notNull(),
  createdAt: text("created_at").notNull(),
  revokedAt: text("revoked_at"),
});

/**
 * An ask's opening: its prompt as the agent gave it, stored as the contract's JSON with the revision
 * that wrote it. Its later turns are rows of `entries`.
 */
export const asks = sqliteTable(
  "asks",
  {
    id: text("id").primaryKey(),
    spaceId: text("space_id").notNull().references(() => spaces.id),
    kind: text("kind", { enum: ["question", "review", "briefing"] }).notNull(),
    status: text("status", { enum: ["awaiting_human", "awaiting_agent", "closed"] }).notNull(),
    revision: text("revision").notNull(),
    /** The ask as opened (prompt, project, client, raisedBy, revises), as JSON of `revision`. */
    opening: text("opening").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    closedAt: text("closed_at"),
    /** How many of the person's turns an agent has been handed: the next call gets the one after. */
    delivered: integer("delivered").notNull().default(0),
    /** The same input from the same person: an agent asking again picks the ask up instead of opening another. */
    fingerprint: text("fingerprint"),
    /** When the latest reply was handed to an agent: within the reclaim window, asking again gets it again. */
    deliveredAt: text("delivered_at"),
    /** Counts the ask's changes: a write decided on version n commits only while the row is still at n. */
    version: integer("version").notNull().default(0),
    /** The token that opened it (none for asks opened before tokens were recorded): open asks are capped per token. */
    tokenId: text("token_id"),
  },
  (t) => [
    index("asks_open").on(t.spaceId, t.status, t.createdAt),
    index("asks_open_by_token").on(t.tokenId, t.status),
    index("asks_closed").on(t.spaceId, t.closedAt),
    index("asks_fingerprint").on(t.spaceId, t.fingerprint),
  ],
);

/** One turn of an ask's thread, as the contract's `Entry` JSON of the revision that wrote it. */
export const entries = sqliteTable(
  "entries",
  {
    askId: text("ask_id").notNull().references(() => asks.id),
    seq: integer("seq").notNull(),
    revision: text("revision").notNull(),
    author: text("author", { enum: ["human", "agent"] }).notNull(),
    body: text("body").notNull(),
    at: text("at").notNull(),
  },
  (t) => [uniqueIndex("entries_ask_seq").on(t.askId, t.seq)],
);

/** Images uploaded against a ticket. The ticket's token is stored hashed, like every credential. */
export const uploads = sqliteTable(
  "uploads",
  {
    id: text("id").primaryKey(),
    spaceId: text("space_id").notNull().references(() => spaces.id),
    tokenHash: text("token_hash").notNull().unique(),
    /** The token the ticket was issued to: its unused tickets are capped, and void once it is revoked. Null on rows from before. */
    tokenId: text("token_id").references(() => tokens.id),
    contentType: text("content_type").notNull(),
    maxBytes: integer("max_bytes").notNull(),
    expiresAt: text("expires_at").notNull(),
    /** Set once the image is stored; the ticket works only while it is null. */
    storedAt: text("stored_at"),
    size: integer("size"),
    /** Set once an ask names the image; one never named is deleted once its grace is over. */
    referencedAt: text("referenced_at"),
    bytes: blob("bytes", { mode: "buffer" }),
  },
  (t) => [
    index("uploads_unused_by_token").on(t.tokenId, t.storedAt, t.expiresAt),
    index("uploads_unused").on(t.storedAt, t.expiresAt),
    index("uploads_orphans").on(t.referencedAt, t.storedAt),
  ],
);

/** MCP tasks (spec 2025-11-25): a blocking tool call an agent follows by polling, across restarts. */
export const tasks = sqliteTable("tasks", {
  id: text("id").primaryKey(),
  spaceId: text("space_id").notNull().references(() => spaces.id),
  askId: text("ask_id"),
  /** The token that created it: only that token reads, awaits or cancels it (none for tasks from before). */
  tokenId: text("token_id"),
  status: text("status").notNull(),
  statusMessage: text("status_message"),
  /** The original request, so a restarted relay can pick the wait up again. */
  request: text("request").notNull(),
  /** The tool's result once there is one, as JSON. */
  result: text("result"),
  ttlMs: integer("ttl_ms"),
  pollIntervalMs: integer("poll_interval_ms"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

/**
 * MCP sessions, so any relay process serves a request carrying a known `Mcp-Session-Id` without a new
 * `initialize`: what `initialize` said is kept to rebuild the session, bound to its token's hash.
 */
export const mcpSessions = sqliteTable(
  "mcp_sessions",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    /** The `initialize` request's params as JSON: protocol version, capabilities, client info. */
    initialize: text("initialize").notNull(),
    createdAt: text("created_at").notNull(),
    lastSeenAt: text("last_seen_at").notNull(),
  },
  (t) => [index("mcp_sessions_token").on(t.tokenHash), index("mcp_sessions_seen").on(t.lastSeenAt)],
);

/**
 * A blocking tool call whose stream can be resumed (`Last-Event-ID`) by any relay process: which
 * session and JSON-RPC request it answers, which ask it follows and from which of the person's turns.
 */
export const waitingCalls = sqliteTable(
  "waiting_calls",
  {
    id: text("id").primaryKey(),
    sessionId: text("session_id").notNull(),
    /** The JSON-RPC request id, as JSON (a string or a number). */
    requestId: text("request_id").notNull(),
    tool: text("tool").notNull(),
    /** Null until the tool has opened or found its ask. */
    askId: text("ask_id"),
    /** The person's turns already handed over when the call began: it returns with a later one. */
    fromTurn: integer("from_turn").notNull().default(0),
    /** The client's progress token, as JSON, so a resumed call keeps reporting progress. */
    progressToken: text("progress_token"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("waiting_calls_session").on(t.sessionId), index("waiting_calls_created").on(t.createdAt)],
);

/** The relay's VAPID key pair, made on first start. One row; every relay on the store signs with it. */
export const pushKeys = sqliteTable("push_keys", {
  id: text("id").primaryKey(),
  publicKey: text("public_key").notNull(),
  privateKey: text("private_key").notNull(),
  createdAt: text("created_at").notNull(),
});

/** A person's browser that takes Web Pushes: its subscription, and how loud it wants to be. */
export const pushDevices = sqliteTable(
  "push_devices",
  {
    id: text("id").primaryKey(),
    spaceId: text("space_id").notNull().references(() => spaces.id),
    personId: text("person_id").notNull().references(() => people.id),
    /** The push service's URL for the subscription; whoever holds it can push to the device. */
    endpoint: text("endpoint").notNull(),
    /** The token that registered it (null for devices older than that rule): revoking the token removes it. */
    tokenId: text("token_id").references(() => tokens.id),
    p256dh: text("p256dh").notNull(),
    auth: text("auth").notNull(),
    name: text("name").notNull(),
    /** The contract's `Loudness`, as JSON. */
    loudness: text("loudness").notNull(),
    createdAt: text("created_at").notNull(),
    lastPushAt: text("last_push_at"),
  },
  // By person and endpoint: an endpoint another person registered is another device, never theirs.
  (t) => [index("push_devices_person").on(t.personId), uniqueIndex("push_devices_person_endpoint").on(t.personId, t.endpoint), index("push_devices_token").on(t.tokenId)],
);

/** Each turn of an ask the person was pushed about, so it is pushed once, whichever relay saw it. */
export const pushNotices = sqliteTable(
  "push_notices",
  {
    askId: text("ask_id").notNull(),
    /** The ask's thread length when it was pushed: a new turn is a new notice. */
    turn: integer("turn").notNull(),
    at: text("at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.askId, t.turn] })],
);

/** One-time passes onto the event socket, stored hashed, so any relay redeems one that another issued. */
export const eventTickets = sqliteTable(
  "event_tickets",
  {
    hash: text("hash").primaryKey(),
    /** The token the ticket was issued to: its unused tickets are capped, and refused once it is revoked. */
    tokenId: text("token_id").notNull().references(() => tokens.id),
    /** The contract revision the socket opened with it speaks (the client named it when asking). */
    revision: text("revision").notNull().default("1"),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("event_tickets_expires").on(t.expiresAt), index("event_tickets_token").on(t.tokenId)],
);

/** Refused tokens per address within a window, shared by every relay so guessing is slowed down on all of them. */
export const authFailures = sqliteTable("auth_failures", {
  address: text("address").primaryKey(),
  count: integer("count").notNull(),
  /** When the window that `count` covers began (ISO time). */
  since: text("since").notNull(),
});

/**
 * Which replica has a call or a task following which ask, so every replica's inbox shows `waiting`
 * as it is across all of them. Kept by the PostgreSQL store only (one relay on its file knows it in
 * memory); a replica counts while it holds a connection to the database.
 */
export const askFollowers = sqliteTable(
  "ask_followers",
  {
    askId: text("ask_id").notNull(),
    replica: text("replica").notNull(),
    since: text("since").notNull(),
  },
  (t) => [primaryKey({ columns: [t.askId, t.replica] }), index("ask_followers_replica").on(t.replica)],
);
