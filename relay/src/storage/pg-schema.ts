// The relay's tables on PostgreSQL: the same tables, columns, indexes and names as `schema.ts` (a test
// holds them together), so one set of queries serves both stores. Times stay ISO text, as on SQLite,
// so they compare the same way in both. Change a table in both files, then write both migrations (see
// the head of schema.ts).
import { customType, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";

/** Image bytes, as `Buffer` like SQLite's blob column gives them. */
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

export const spaces = pgTable("spaces", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  createdAt: text("created_at").notNull(),
});

export const people = pgTable(
  "people",
  {
    id: text("id").primaryKey(),
    spaceId: text("space_id").notNull().references(() => spaces.id),
    name: text("name").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("people_space_name").on(t.spaceId, t.name)],
);

export const tokens = pgTable("tokens", {
  id: text("id").primaryKey(),
  hash: text("hash").notNull().unique(),
  personId: text("person_id").notNull().references(() => people.id),
  kind: text("kind", { enum: ["person", "agent"] }).notNull(),
  createdAt: text("created_at").notNull(),
  revokedAt: text("revoked_at"),
});

export const asks = pgTable(
  "asks",
  {
    id: text("id").primaryKey(),
    spaceId: text("space_id").notNull().references(() => spaces.id),
    kind: text("kind", { enum: ["question", "review", "briefing"] }).notNull(),
    status: text("status", { enum: ["awaiting_human", "awaiting_agent", "closed"] }).notNull(),
    revision: text("revision").notNull(),
    opening: text("opening").notNull(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    closedAt: text("closed_at"),
    delivered: integer("delivered").notNull().default(0),
    fingerprint: text("fingerprint"),
    deliveredAt: text("delivered_at"),
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

export const entries = pgTable(
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

export const uploads = pgTable(
  "uploads",
  {
    id: text("id").primaryKey(),
    spaceId: text("space_id").notNull().references(() => spaces.id),
    tokenHash: text("token_hash").notNull().unique(),
    tokenId: text("token_id").references(() => tokens.id),
    contentType: text("content_type").notNull(),
    maxBytes: integer("max_bytes").notNull(),
    expiresAt: text("expires_at").notNull(),
    storedAt: text("stored_at"),
    size: integer("size"),
    referencedAt: text("referenced_at"),
    bytes: bytea("bytes"),
  },
  (t) => [
    index("uploads_unused_by_token").on(t.tokenId, t.storedAt, t.expiresAt),
    index("uploads_unused").on(t.storedAt, t.expiresAt),
    index("uploads_orphans").on(t.referencedAt, t.storedAt),
  ],
);

export const tasks = pgTable("tasks", {
  id: text("id").primaryKey(),
  spaceId: text("space_id").notNull().references(() => spaces.id),
  askId: text("ask_id"),
  /** The token that created it: only that token reads, awaits or cancels it (none for tasks from before). */
  tokenId: text("token_id"),
  status: text("status").notNull(),
  statusMessage: text("status_message"),
  request: text("request").notNull(),
  result: text("result"),
  ttlMs: integer("ttl_ms"),
  pollIntervalMs: integer("poll_interval_ms"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

export const mcpSessions = pgTable(
  "mcp_sessions",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    initialize: text("initialize").notNull(),
    createdAt: text("created_at").notNull(),
    lastSeenAt: text("last_seen_at").notNull(),
  },
  (t) => [index("mcp_sessions_token").on(t.tokenHash), index("mcp_sessions_seen").on(t.lastSeenAt)],
);

export const waitingCalls = pgTable(
  "waiting_calls",
  {
    id: text("id").primaryKey(),
    sessionId: text("session_id").notNull(),
    requestId: text("request_id").notNull(),
    tool: text("tool").notNull(),
    askId: text("ask_id"),
    fromTurn: integer("from_turn").notNull().default(0),
    progressToken: text("progress_token"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("waiting_calls_session").on(t.sessionId), index("waiting_calls_created").on(t.createdAt)],
);

export const pushKeys = pgTable("push_keys", {
  id: text("id").primaryKey(),
  publicKey: text("public_key").notNull(),
  privateKey: text("private_key").notNull(),
  createdAt: text("created_at").notNull(),
});

export const pushDevices = pgTable(
  "push_devices",
  {
    id: text("id").primaryKey(),
    spaceId: text("space_id").notNull().references(() => spaces.id),
    personId: text("person_id").notNull().references(() => people.id),
    endpoint: text("endpoint").notNull(),
    tokenId: text("token_id").references(() => tokens.id),
    p256dh: text("p256dh").notNull(),
    auth: text("auth").notNull(),
    name: text("name").notNull(),
    loudness: text("loudness").notNull(),
    createdAt: text("created_at").notNull(),
    lastPushAt: text("last_push_at"),
  },
  (t) => [index("push_devices_person").on(t.personId), uniqueIndex("push_devices_person_endpoint").on(t.personId, t.endpoint), index("push_devices_token").on(t.tokenId)],
);

export const pushNotices = pgTable(
  "push_notices",
  {
    askId: text("ask_id").notNull(),
    turn: integer("turn").notNull(),
    at: text("at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.askId, t.turn] })],
);

export const eventTickets = pgTable(
  "event_tickets",
  {
    hash: text("hash").primaryKey(),
    tokenId: text("token_id").notNull().references(() => tokens.id),
    revision: text("revision").notNull().default("1"),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("event_tickets_expires").on(t.expiresAt), index("event_tickets_token").on(t.tokenId)],
);

export const authFailures = pgTable("auth_failures", {
  address: text("address").primaryKey(),
  count: integer("count").notNull(),
  since: text("since").notNull(),
});

export const askFollowers = pgTable(
  "ask_followers",
  {
    askId: text("ask_id").notNull(),
    replica: text("replica").notNull(),
    since: text("since").notNull(),
  },
  (t) => [primaryKey({ columns: [t.askId, t.replica] }), index("ask_followers_replica").on(t.replica)],
);
