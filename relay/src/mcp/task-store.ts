// The SDK's TaskStore (MCP tasks, spec 2025-11-25) over the tasks table and the waiting core. A task
// follows one ask; its state is worked out from the ask whenever the agent polls, so a task outlives
// relay restarts without anything running for it in between.
import type { Request, RequestId, Result, Task } from "@modelcontextprotocol/sdk/types.js";
import type { CreateTaskOptions, TaskStore } from "@modelcontextprotocol/sdk/experimental/tasks/interfaces.js";
import type { Waiting } from "../asks/waiting.ts";
import type { Caller } from "../auth/gate.ts";
import type { Clock } from "../clock.ts";
import { newId } from "../ids.ts";
import type { TaskRecords, TaskRow } from "../storage/store.ts";
import type { TaskLifetimes } from "./task-lifetimes.ts";
import { TASK_DEFAULT_TTL_MS, TASK_MAX_TTL_MS } from "./task-ttl.ts";
import { toolError, toolResult } from "./tool.ts";

export const TASK_POLL_INTERVAL_MS = 500;
/** How long one poll keeps the ask `waiting`: a few missed polls, not one. */
const LEASE_MS = 4 * TASK_POLL_INTERVAL_MS + 2_000;
const PAGE = 50;

interface TaskRequest {
  tool: string;
  /** The person's turns already handed over when the task began: it completes with a later one. */
  from: number;
}

export class McpTaskStore implements TaskStore {
  constructor(
    private waiting: Waiting,
    private tasks: TaskRecords,
    private clock: Clock,
    private caller: Caller,
    private lifetimes: TaskLifetimes,
  ) {}

  /**
   * Records a task that follows `askId` from turn `from` (or that already failed, with `result`).
   * `opened`: the ask was opened for it and already announced as waiting.
   */
  async open(askId: string | undefined, tool: string, from: number, params: CreateTaskOptions, failed?: Result, opened = false): Promise<Task> {
    const at = this.clock.now();
    const ttl = Math.min(params.ttl ?? TASK_DEFAULT_TTL_MS, TASK_MAX_TTL_MS);
    const row: TaskRow = {
      id: newId("tsk"),
      spaceId: this.caller.spaceId,
      tokenId: this.caller.tokenId,
      askId: askId ?? null,
      status: failed ? "failed" : "working",
      statusMessage: failed ? "The tool refused the call." : "Waiting for the person's reply.",
      request: JSON.stringify({ tool, from: askId && !failed ? from : 0 } satisfies TaskRequest),
      result: failed ? JSON.stringify(failed) : null,
      ttlMs: ttl,
      pollIntervalMs: TASK_POLL_INTERVAL_MS,
      createdAt: at,
      updatedAt: at,
    };
    await this.tasks.insert(row);
    this.lifetimes.began(row.id, Date.parse(at));
    if (askId && !failed) await this.advance(row, opened);
    return toTask(row);
  }

  async createTask(params: CreateTaskOptions, _requestId: RequestId, request: Request): Promise<Task> {
    return this.open(undefined, String((request.params as any)?.name ?? "unknown"), 0, params);
  }

  async getTask(taskId: string): Promise<Task | null> {
    const row = await this.row(taskId);
    return row ? toTask(await this.advance(row)) : null;
  }

  async storeTaskResult(taskId: string, status: "completed" | "failed", result: Result): Promise<void> {
    await this.update(taskId, { status, result: JSON.stringify(result) });
  }

  async getTaskResult(taskId: string): Promise<Result> {
    const row = await this.row(taskId);
    if (!row?.result) throw new Error(`Task ${taskId} has no result yet`);
    return JSON.parse(row.result);
  }

  async updateTaskStatus(taskId: string, status: Task["status"], statusMessage?: string): Promise<void> {
    const row = await this.row(taskId);
    if (!row) throw new Error(`Task ${taskId} not found`);
    await this.update(taskId, { status, statusMessage: statusMessage ?? row.statusMessage });
    if (status === "cancelled" && row.askId) this.waiting.endLease(row.askId);
  }

  async listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    this.lifetimes.sweep();
    await this.tasks.sweep(this.clock.steadyWallMs());
    const rows = await this.tasks.list(this.caller.spaceId, PAGE, cursor, this.caller.tokenId);
    const page = rows.slice(0, PAGE).filter((row) => this.alive(row));
    return { tasks: page.map(toTask), ...(rows.length > PAGE ? { nextCursor: page.at(-1)!.id } : {}) };
  }

  /** A working task whose ask has a reply for the agent becomes completed, with that reply. */
  private async advance(row: TaskRow, opened = false): Promise<TaskRow> {
    if (row.status !== "working" || !row.askId) return row;
    const { from = 0 } = JSON.parse(row.request) as Partial<TaskRequest>;
    try {
      const reply = await this.waiting.poll(this.caller, row.askId, { from, leaseMs: LEASE_MS, opened });
      if (!reply) return row;
      return await this.update(row.id, { status: "completed", statusMessage: "The person replied.", result: JSON.stringify(toolResult(reply)) });
    } catch (e) {
      // tasks/result hands a failed task's result over too: the refusal, in the words a call would give.
      return this.update(row.id, { status: "failed", statusMessage: String((e as Error).message), result: JSON.stringify(toolError(e)) });
    }
  }

  /**
   * The task, if this session's token created it (MCP binds a task to its creator): another token's,
   * even in the same space, is as absent as one that never existed. Tasks from before tokens were
   * recorded stay the space's.
   */
  private async row(taskId: string): Promise<TaskRow | undefined> {
    const row = await this.tasks.get(this.caller.spaceId, taskId, this.lifetimes.nowFor(taskId));
    if (row) this.lifetimes.seen(taskId);
    return row && (row.tokenId === null || row.tokenId === this.caller.tokenId) ? row : undefined;
  }

  /** Whether a task is within its time to live, as this relay counts it (task-lifetimes.ts). */
  private alive(row: TaskRow): boolean {
    return row.ttlMs === null || Date.parse(row.createdAt) + row.ttlMs >= this.lifetimes.nowFor(row.id);
  }

  private async update(taskId: string, set: Partial<TaskRow>): Promise<TaskRow> {
    const updated = await this.tasks.update(this.caller.spaceId, taskId, { ...set, updatedAt: this.clock.now() });
    if (!updated) throw new Error(`Task ${taskId} not found`);
    return updated;
  }
}

function toTask(row: TaskRow): Task {
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
