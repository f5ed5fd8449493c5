// MCP tasks (spec 2025-11-25) in SQLite. A task follows one ask; its state is worked out from the
// ask whenever the agent polls, so a task outlives relay restarts without anything running for it
// in between. The task logic (what a task is, when it completes) stays apart from the SDK's wire
// format, so the newer `io.modelcontextprotocol/tasks` extension can be served by the same store.
import { and, asc, eq, gt, isNotNull, sql } from "drizzle-orm";
import type { Request, RequestId, Result, Task } from "@modelcontextprotocol/sdk/types.js";
import type { CreateTaskOptions, TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import type { Caller } from "../auth/gate.ts";
import { newId } from "../ids.ts";
import type { Relay } from "../relay.ts";
import { tasks } from "../storage/schema.ts";
import { toolError, toolResult } from "./tool.ts";

export const TASK_POLL_INTERVAL_MS = 500;
export const TASK_DEFAULT_TTL_MS = 24 * 60 * 60_000;
export const TASK_MAX_TTL_MS = 7 * 24 * 60 * 60_000;
/** How long one poll keeps the ask `waiting`: a few missed polls, not one. */
const LEASE_MS = 4 * TASK_POLL_INTERVAL_MS + 2_000;
const PAGE = 50;

type Row = typeof tasks.$inferSelect;

interface TaskRequest {
  tool: string;
  /** The person's turns already handed over when the task began: it completes with a later one. */
  from: number;
}


export class SqliteTaskStore implements TaskStore {
  constructor(
    private relay: Relay,
    private caller: Caller,
  ) {}

  /** Records a task that follows `askId` (or that already failed, with `result`). */
  open(askId: string | undefined, tool: string, resume: boolean, params: CreateTaskOptions, failed?: Result): Task {
    const at = this.relay.clock.now();
    const ttl = Math.min(params.ttl ?? TASK_DEFAULT_TTL_MS, TASK_MAX_TTL_MS);
    const row: Row = {
      id: newId("tsk"),
      spaceId: this.caller.spaceId,
      askId: askId ?? null,
      status: failed ? "failed" : "working",
      statusMessage: failed ? "The tool refused the call." : "Waiting for the person's reply.",
      request: JSON.stringify({ tool, from: askId && !failed ? this.relay.asks.handedBefore(this.caller, askId, resume) : 0 } satisfies TaskRequest),
      result: failed ? JSON.stringify(failed) : null,
      ttlMs: ttl,
      pollIntervalMs: TASK_POLL_INTERVAL_MS,
      createdAt: at,
      updatedAt: at,
    };
    this.relay.db.insert(tasks).values(row).run();
    if (askId && !failed) this.advance(row);
    return toTask(row);
  }

  async createTask(params: CreateTaskOptions, _requestId: RequestId, request: Request): Promise<Task> {
    return this.open(undefined, String((request.params as any)?.name ?? "unknown"), false, params);
  }

  async getTask(taskId: string): Promise<Task | null> {
    const row = this.row(taskId);
    return row ? toTask(this.advance(row)) : null;
  }

  async storeTaskResult(taskId: string, status: "completed" | "failed", result: Result): Promise<void> {
    this.update(taskId, { status, result: JSON.stringify(result) });
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const row = this.row(taskId);
    if (!row?.result) throw new Error(`Task ${taskId} has no result yet`);
    return JSON.parse(row.result);
  }

  async updateTaskStatus(taskId: string, status: Task["status"], statusMessage?: string): Promise<void> {
    const row = this.row(taskId);
    if (!row) throw new Error(`Task ${taskId} not found`);
    this.update(taskId, { status, statusMessage: statusMessage ?? row.statusMessage });
    if (status === "cancelled" && row.askId) this.relay.asks.endLease(row.askId);
  }

  async listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    this.sweep();
    const rows = this.relay.db
      .select()
      .from(tasks)
      .where(and(eq(tasks.spaceId, this.caller.spaceId), cursor ? gt(tasks.id, cursor) : undefined))
      .orderBy(asc(tasks.id))
      .limit(PAGE + 1)
      .all();
    const page = rows.slice(0, PAGE);
    return { tasks: page.map(toTask), ...(rows.length > PAGE ? { nextCursor: page.at(-1)!.id } : {}) };
  }

  /** A working task whose ask has a reply for the agent becomes completed, with that reply. */
  private advance(row: Row): Row {
    if (row.status !== "working" || !row.askId) return row;
    const { from = 0 } = JSON.parse(row.request) as Partial<TaskRequest>;
    try {
      const reply = this.relay.asks.poll(this.caller, row.askId, { from, leaseMs: LEASE_MS });
      if (!reply) return row;
      return this.update(row.id, { status: "completed", statusMessage: "The person replied.", result: JSON.stringify(toolResult(reply)) });
    } catch (e) {
      // tasks/result hands a failed task's result over too: the refusal, in the words a call would give.
      return this.update(row.id, { status: "failed", statusMessage: String((e as Error).message), result: JSON.stringify(toolError(e)) });
    }
  }

  private row(taskId: string): Row | undefined {
    const row = this.relay.db.select().from(tasks).where(and(eq(tasks.id, taskId), eq(tasks.spaceId, this.caller.spaceId))).get();
    if (row && row.ttlMs !== null && Date.parse(row.createdAt) + row.ttlMs < Date.now()) return undefined;
    return row;
  }

  private update(taskId: string, set: Partial<Row>): Row {
    const updated = this.relay.db
      .update(tasks)
      .set({ ...set, updatedAt: this.relay.clock.now() })
      .where(and(eq(tasks.id, taskId), eq(tasks.spaceId, this.caller.spaceId)))
      .returning()
      .get();
    if (!updated) throw new Error(`Task ${taskId} not found`);
    return updated;
  }

  /** Forgets tasks past their time to live. */
  private sweep(): void {
    // One statement: SQLite reads the ISO times as Julian days (milliseconds: × 86,400,000).
    this.relay.db
      .delete(tasks)
      .where(and(isNotNull(tasks.ttlMs), sql`julianday(${tasks.createdAt}) * 86400000 + ${tasks.ttlMs} < julianday('now') * 86400000`))
      .run();
  }
}

function toTask(row: Row): Task {
  return {
    taskId: row.id,
    status: row.status as Task["status"],
    ...(row.statusMessage ? { statusMessage: row.statusMessage } : {}),
    createdAt: row.createdAt,
    lastUpdatedAt: row.updatedAt,
    ttl: row.ttlMs,
    pollInterval: row.pollIntervalMs ?? TASK_POLL_INTERVAL_MS,
  };
}

