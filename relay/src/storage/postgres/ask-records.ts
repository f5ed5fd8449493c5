// The two writes of an ask's life that someone waits on, each in one round trip to PostgreSQL; every
// other ask record is the shared one (records/ask-records.ts). A turn (the person's reply, which an
// agent's call waits for) is one statement, so it is its own transaction: the compare-and-set, the
// turn's rows, the hand-over and the NOTIFY commit together, durably, in the statement's one round
// trip, where a BEGIN, the statements and a COMMIT took two after a pause. A new ask (which the inbox
// waits to see) needs its space's lock before it counts what is open, so it stays a transaction, but
// one sent whole without waiting for any answer: BEGIN, the lock, one statement that counts, inserts
// and announces, COMMIT.
import type { Ask } from "@loopback/shared/generated/types";
import { REVISION } from "@loopback/shared/generated/revision";
import { replyCount } from "@loopback/shared/ask-rules/index";
import type postgres from "postgres";
import type { Committed, Dialect } from "../dialect.ts";
import { asLeft, OPEN_STATUSES, opening, SqlAskRecords } from "../records/ask-records.ts";
import type { AppendOutcome, CallRow, InsertOutcome, OpenAskCap, VersionedAsk } from "../store.ts";

/**
 * Moves the ask if it is still at the version the writer read, adds the turn's rows only if it moved,
 * and announces only what moved: no row back, nothing written (not this writer's turn). The hand-over,
 * when given, is recorded with it; otherwise `delivered` is left as it is.
 */
const APPEND = `
with moved as (
  update asks set status = $1, updated_at = $2, closed_at = $3, version = $4,
    delivered = coalesce($5::integer, delivered), delivered_at = coalesce($6::text, delivered_at)
  where id = $7 and version = $8
  returning id
), added as (
  insert into entries (ask_id, seq, revision, author, body, at)
  select moved.id, e.seq, e.revision, e.author, e.body, e.at
  from moved, json_to_recordset($9::json) as e(seq integer, revision text, author text, body text, at text)
)
select pg_notify($10, $11) from moved`;

/**
 * Counts the space's open asks (under its lock, taken by the statement before, so every ask committed
 * before this one's turn is counted), and only while both caps leave room inserts the ask, its call's
 * record and announces it. Says how many were open, and whether it inserted. The open asks are named
 * by the shared records' OPEN_STATUSES (constants, written into the text), so the count seeks asks_open.
 */
const INSERT = `
with open as (
  select coalesce(sum(case when token_id = $1 then 1 else 0 end), 0)::bigint as by_token, count(*)::bigint as by_space
  from asks where space_id = $2 and status in (${OPEN_STATUSES.map((status) => `'${status}'`).join(", ")})
), ask as (
  insert into asks (id, space_id, kind, status, revision, opening, created_at, updated_at, fingerprint, token_id, version)
  select $3, $2, $4, $5, $6, $7, $8, $9, $10, $11, 0
  from open where ($12::bigint is null or by_token < $12) and ($13::bigint is null or by_space < $13)
  returning id
), call as (
  insert into waiting_calls (id, session_id, request_id, tool, ask_id, from_turn, progress_token, created_at)
  select c.id, c.session_id, c.request_id, c.tool, c.ask_id, c.from_turn, c.progress_token, c.created_at
  from ask, json_to_recordset($14::json) as c(id text, session_id text, request_id text, tool text, ask_id text, from_turn integer, progress_token text, created_at text)
)
select open.by_token, open.by_space, (select count(*) from (select pg_notify($15, $16) from ask) as told) as inserted from open`;

export class PgAskRecords extends SqlAskRecords {
  constructor(
    d: Dialect,
    private replicaName: string,
    private client: postgres.Sql,
    /** The channel the other replicas hear ask changes on. */
    private channel: string,
  ) {
    super(d, replicaName);
  }

  override async append(before: VersionedAsk, after: Ask, handedOverAt?: string, committed?: Committed): Promise<AppendOutcome> {
    const from = before.ask.thread.length;
    const added = after.thread.slice(from).map((entry, i) => ({ seq: from + i, revision: REVISION, author: entry.author, body: JSON.stringify(entry), at: entry.at }));
    const version = before.version + 1;
    const change = { askId: after.id, spaceId: before.spaceId, version, replica: this.replicaName, ...asLeft(after) };
    const handed = handedOverAt === undefined ? [null, null] : [replyCount(after), handedOverAt];
    const moved = await this.client.unsafe(
      APPEND,
      [after.status, after.updatedAt, after.closedAt ?? null, version, ...handed, after.id, before.version, JSON.stringify(added), this.channel, JSON.stringify(change)] as never[],
      { prepare: true },
    );
    if (moved.length !== 1) return "not_your_turn";
    committed?.();
    return "appended";
  }

  override async insert(spaceId: string, ask: Ask, fingerprint?: string, call?: CallRow, cap?: OpenAskCap, committed?: Committed): Promise<InsertOutcome> {
    const calls = call ? [{ ...call, askId: call.askId ?? null, fromTurn: call.fromTurn ?? 0, progressToken: call.progressToken ?? null }] : [];
    const finite = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? null : n);
    const params = [
      cap?.tokenId ?? null,
      spaceId,
      ask.id,
      ask.kind,
      ask.status,
      REVISION,
      JSON.stringify(opening(ask)),
      ask.createdAt,
      ask.updatedAt,
      fingerprint ?? null,
      cap?.tokenId ?? null,
      finite(cap?.maxPerToken),
      finite(cap?.maxPerSpace),
      JSON.stringify(calls.map((c) => ({ id: c.id, session_id: c.sessionId, request_id: c.requestId, tool: c.tool, ask_id: c.askId, from_turn: c.fromTurn, progress_token: c.progressToken, created_at: c.createdAt }))),
      this.channel,
      JSON.stringify({ askId: ask.id, spaceId, version: 0, replica: this.replicaName, ...asLeft(ask) }),
    ] as never[];
    const reserved = await this.client.reserve();
    try {
      // Sent one after another without waiting (postgres.js pipelines on the reserved connection): one
      // round trip. A statement that fails leaves the transaction aborted, and its COMMIT rolls back.
      const sent = [
        reserved`begin`.execute(),
        // Not waited onto the disk: nobody has been told of the ask yet.
        reserved`set local synchronous_commit = off`.execute(),
        // Held to the commit: a writer that takes it after this one counts this ask.
        ...(cap ? [reserved`select pg_advisory_xact_lock(hashtextextended(${`open_asks:${spaceId}`}, 0))`.execute()] : []),
        reserved.unsafe(INSERT, params, { prepare: true }).execute(),
        reserved`commit`.execute(),
      ];
      const settled = await Promise.allSettled(sent);
      for (const s of settled) if (s.status === "rejected") throw s.reason;
      const [row] = (settled.at(-2) as PromiseFulfilledResult<unknown>).value as { by_token: string; by_space: string; inserted: string }[];
      if (Number(row.inserted) === 1) {
        committed?.();
        return "inserted";
      }
      return cap && Number(row.by_token) >= cap.maxPerToken ? "token_full" : "space_full";
    } finally {
      reserved.release();
    }
  }
}
