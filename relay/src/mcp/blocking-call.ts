// One blocking tool call, however it reached the relay: the SDK's handler (a call in a batch), the
// relay's own stream, a resume of that stream (`GET` + `Last-Event-ID`) on any process, or a task the
// agent polls. It opens or picks up its ask, follows it for the person's reply with the wait and
// progress its client fits, keeps the durable record a resume follows it by, and ends one of three
// ways: cancelled by the client (the record ends with it), dropped or handed over by a stopping
// relay (the record stays, so the client resumes it).
import { log } from "../logging/log.ts";
import type { CallToolResult, RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { AskService, CallRecordOf } from "../asks/ask-service.ts";
import type { Waiting } from "../asks/waiting.ts";
import type { Caller } from "../auth/gate.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config.ts";
import type { CallRecords, CallRow } from "../storage/store.ts";
import { waitBudgetMs } from "./clients.ts";
import { blockingResult, toolError, toolResult as toolResultOf, type BlockingTool, type ToolContext } from "./tool.ts";
import { TOOLS_BY_NAME } from "./tools/index.ts";

/** What a blocking call uses of the relay. */
export interface BlockingCallServices {
  waiting: Waiting;
  /** Reads the ask a tool with a result of its own answers from (an approval's input). */
  asks: Pick<AskService, "get">;
  calls: CallRecords;
  clock: Clock;
  config: Pick<Config, "waitBudgetMs" | "progressEveryMs" | "waitBudgetForAll" | "clientWaitBudgetsMs">;
}

/** The durable record a client that resumes streams follows a call by. */
export interface Durable {
  id: string;
  sessionId: string;
  requestId: RequestId;
  progressToken?: string | number;
  /** Its client resumes the call's stream when it ends without a result (so a stopping relay hands it over). */
  resumes: boolean;
}

/** How a call tells its client it still waits. */
export type OnProgress = (waitedMs: number) => void;

/**
 * Hears the call's result as soon as it is known, when that is sooner than the call's promise: in
 * the turn the person's reply committed. The promise still resolves with the same result.
 */
export type OnResult = (result: CallToolResult) => void;

/** An ask a call or task follows, from which of the person's turns. */
export interface Begun {
  askId: string;
  from: number;
  opened: boolean;
  /** Lets go of the hold that keeps a new ask `waiting` until its follower follows it. */
  release?: () => void;
  /** The durable record was stored with the new ask. */
  recorded: boolean;
}

/**
 * Opens (or picks up) the ask a blocking tool puts in front of the person, and works out from which
 * turn its follower waits. A refusal throws, with every hold let go.
 */
export async function begin(services: Pick<BlockingCallServices, "waiting">, ctx: ToolContext, tool: BlockingTool, args: unknown, record?: CallRecordOf): Promise<Begun> {
  let started: Awaited<ReturnType<BlockingTool["start"]>> | undefined;
  try {
    started = await tool.start({ ...ctx, call: record }, args);
    const from = await services.waiting.from(ctx.caller, started.askId, Boolean(tool.resume || started.reclaimed));
    return { askId: started.askId, from, opened: started.opened ?? false, release: started.release, recorded: Boolean(started.recorded) };
  } catch (e) {
    started?.release?.();
    throw e;
  }
}

/** What a call's `open` did: the ask it follows, with the place it holds, or its refusal. */
export type Opening = { tool: BlockingTool; room: () => void; begun: Begun } | { refused: CallToolResult };

export class BlockingCall {
  readonly #stop = new AbortController();
  #cancelled = false;
  #settled!: () => void;
  /** Settles once the call has ended, however it did. */
  readonly ended = new Promise<void>((resolve) => (this.#settled = resolve));

  constructor(
    private services: BlockingCallServices,
    readonly caller: Caller,
    /** Its durable record, when its client resumes streams. */
    readonly durable?: Durable,
    /** Its client's `clientInfo.name`: the wait fits that client's timeout. */
    readonly client?: string,
  ) {}

  get stopped(): boolean {
    return this.#stop.signal.aborted;
  }

  /**
   * Opens (or picks up) the ask and follows it. A refusal is an `isError` result; a call stopped
   * before its reply throws, since nobody reads its result.
   */
  async start(ctx: ToolContext, tool: BlockingTool, args: unknown, onProgress?: OnProgress, onResult?: OnResult): Promise<CallToolResult> {
    return this.follow(await this.open(ctx, tool, args), onProgress, onResult);
  }

  /**
   * Opens (or picks up) the ask, and settles once it is shown to the person or refused; `follow`
   * then waits on it. Split so that a caller builds what only the wait needs (the call's stream)
   * after the ask is on its way to the person, not before. Never throws: a refusal is what `follow` returns.
   */
  async open(ctx: ToolContext, tool: BlockingTool, args: unknown): Promise<Opening> {
    const { waiting } = this.services;
    // A place among the token's waiting calls is taken before anything opens, and kept by the wait.
    let room: (() => void) | undefined;
    try {
      room = waiting.enter(this.caller);
      return { tool, room, begun: await begin(this.services, ctx, tool, args, this.durable && this.#recordOf(tool.name)) };
    } catch (e) {
      room?.();
      return { refused: toolError(e) };
    }
  }

  /** Follows what `open` opened: its refusal, or the person's reply. */
  async follow(opening: Opening, onProgress?: OnProgress, onResult?: OnResult): Promise<CallToolResult> {
    if ("refused" in opening) {
      this.#end();
      return opening.refused;
    }
    const { tool, room, begun } = opening;
    try {
      // A new ask was stored with it; an ask that was already there gets it now.
      if (this.durable && !begun.recorded) await this.services.calls.insert(this.#recordOf(tool.name)(begun.askId, begun.from));
      // Cancelled while its ask was opened: the record written with it ends too.
      if (this.#cancelled) await this.#forget();
      return await this.#follow(tool, begun.askId, { from: begun.from, opened: begun.opened, release: begun.release, room }, onProgress, onResult);
    } finally {
      room();
      begun.release?.();
      this.#end();
    }
  }

  /** Follows the ask of a durable record again, from its turn, as the call it records did. */
  async resume(record: CallRow, onProgress?: OnProgress, onResult?: OnResult): Promise<CallToolResult> {
    try {
      const tool = TOOLS_BY_NAME.get(record.tool as never);
      return await this.#follow(tool?.kind === "blocking" ? tool : undefined, record.askId!, { from: record.fromTurn }, onProgress, onResult);
    } finally {
      this.#end();
    }
  }

  /**
   * The client cancelled it (the person pressed Esc, its tool timeout ran out): nobody will read a
   * result, and its durable record ends, so a resume of its stream is refused and the reply stays
   * for whoever follows the ask next.
   */
  cancel(): void {
    this.#cancelled = true;
    this.#stop.abort(new Error("cancelled"));
    void this.#forget().catch((e) => log("mcp").warn("could not end a cancelled call's record", { error: e }));
  }

  /** Its connection dropped: a client that resumes comes back for it. */
  drop(): void {
    this.#stop.abort(new Error("dropped"));
  }

  /**
   * The relay stops: a call whose client resumes ends without a result, and its client follows it
   * on the next process; any other is answered `pending` by the waiting core's release.
   */
  handOver(): void {
    if (this.durable?.resumes) this.#stop.abort(new Error("handed over"));
  }

  /** Its token was revoked: it ends without a result. */
  revoke(): void {
    this.#stop.abort(new Error("revoked"));
  }

  async #follow(tool: BlockingTool | undefined, askId: string, from: { from: number; opened?: boolean; release?: () => void; room?: () => void }, onProgress?: OnProgress, onResult?: OnResult): Promise<CallToolResult> {
    const { waiting, config, asks } = this.services;
    let early: CallToolResult | undefined;
    try {
      const reply = await waiting.follow(this.caller, askId, {
        ...from,
        signal: this.#stop.signal,
        // A tool whose client cannot read a `pending` waits as long as the person takes (budget 0).
        budgetMs: tool?.unbudgeted ? 0 : waitBudgetMs(config, this.client),
        progressEveryMs: config.progressEveryMs,
        onProgress,
        // A result in the tool's own shape may read the ask first: it comes when the promise does.
        handOver: onResult && !tool?.present ? (reply) => onResult((early = toolResultOf(reply))) : undefined,
      });
      return early ?? (tool ? await blockingResult(tool, reply, () => asks.get(this.caller, askId)) : toolResultOf(reply));
    } catch (e) {
      if (this.stopped) throw e;
      return toolError(e);
    }
  }

  #recordOf(tool: string): CallRecordOf {
    const durable = this.durable!;
    return (askId, fromTurn) => ({
      id: durable.id,
      sessionId: durable.sessionId,
      requestId: JSON.stringify(durable.requestId),
      tool,
      askId,
      fromTurn,
      progressToken: durable.progressToken === undefined ? null : JSON.stringify(durable.progressToken),
      createdAt: this.services.clock.now(),
    });
  }

  async #forget(): Promise<void> {
    if (this.durable) await this.services.calls.deleteForRequest(this.durable.sessionId, JSON.stringify(this.durable.requestId));
  }

  #end(): void {
    this.#settled();
  }
}

/** A call with a durable record: one on the relay's own stream, whose events carry ids of that record. */
export type DurableCall = BlockingCall & { readonly durable: Durable };

/** The blocking calls running on this process, to hand over when it stops or end when their token is revoked. */
export class BlockingCalls {
  #live = new Set<BlockingCall>();

  constructor(private services: BlockingCallServices) {}

  /** A new call, or the resume of a durable record (then `durable` is that record's), of the named client. */
  open(caller: Caller, durable: Durable, client?: string): DurableCall;
  open(caller: Caller, durable?: Durable, client?: string): BlockingCall;
  open(caller: Caller, durable?: Durable, client?: string): BlockingCall {
    const call = new BlockingCall(this.services, caller, durable, client);
    this.#live.add(call);
    void call.ended.then(() => this.#live.delete(call));
    return call;
  }

  /**
   * A client's `notifications/cancelled`: the call ends here if it runs here, and its record ends
   * wherever it was written (the call may have been carried by a process that has since stopped).
   */
  async cancel(sessionId: string, requestId: RequestId, live?: BlockingCall): Promise<void> {
    live?.cancel();
    await this.services.calls.deleteForRequest(sessionId, JSON.stringify(requestId));
  }

  /**
   * The durable record a resume names, when it is the resuming session's, with what its call is
   * followed by: the original request id and progress token, and that its client resumes (it did once).
   */
  async resumable(callId: string, sessionId: string): Promise<{ record: CallRow; durable: Durable } | undefined> {
    const record = await this.services.calls.get(callId);
    if (!record || record.sessionId !== sessionId) return undefined;
    const requestId = JSON.parse(record.requestId) as RequestId;
    const progressToken = record.progressToken === null ? undefined : (JSON.parse(record.progressToken) as string | number);
    return { record, durable: { id: record.id, sessionId, requestId, progressToken, resumes: true } };
  }

  endForTokens(tokenIds: Set<string>): void {
    for (const call of this.#live) if (tokenIds.has(call.caller.tokenId)) call.revoke();
  }

  tokenIds(): string[] {
    return [...this.#live].map((c) => c.caller.tokenId);
  }

  /**
   * Before the relay stops: every call is handed over, then every other wait on this process answers
   * `pending`. Resolves once every call has ended, or after `withinMs`, whichever is first.
   */
  async handOverAll(withinMs: number): Promise<void> {
    for (const call of this.#live) call.handOver();
    this.services.waiting.releaseAll();
    await within(withinMs, [...this.#live].map((c) => c.ended));
  }

  get count(): number {
    return this.#live.size;
  }
}

/** Resolves once every promise has settled, or after `ms`, whichever is first. */
export async function within(ms: number, promises: Promise<unknown>[]): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([Promise.allSettled(promises), new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}
