import type { Ask, ServerEvent } from "@loopback/shared/generated/types";
import { summarize } from "@loopback/shared/ask-rules/summarize";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { aQuestion, fresh } from "../testing/asks";
import { EventStream, KEEPALIVE_MS, type InboxEvent, type StreamState } from "./event-stream";
import type { RelayClient } from "./relay-client";
import { RelayError } from "./relay-error";

class FakeSocket {
  static all: FakeSocket[] = [];
  readonly CONNECTING = 0;
  readonly OPEN = 1;
  readyState = 0;
  sent: string[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((m: { data: string }) => void) | null = null;
  onclose: ((c: { code: number; reason: string }) => void) | null = null;
  onerror: (() => void) | null = null;
  constructor(readonly url: string, readonly protocols: string[]) {
    FakeSocket.all.push(this);
  }
  send(data: string) {
    this.sent.push(data);
  }
  close() {
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
  deliver(event: ServerEvent) {
    this.onmessage?.({ data: JSON.stringify(event) });
  }
  drop(reason = "", code = 1006) {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
}

function start(ticket = vi.fn(async () => ({ ticket: `t${ticket.mock.calls.length}`, expiresAt: "" }))) {
  const client = { eventsUrl: "ws://relay.test/api/v1/events", ticket } as unknown as RelayClient;
  const events: InboxEvent[] = [];
  const states: StreamState[] = [];
  const controller = new AbortController();
  const stream = new EventStream({
    client,
    signal: controller.signal,
    onEvent: (e) => void events.push(e),
    onState: (s) => void states.push(s),
    WebSocket: FakeSocket as unknown as typeof WebSocket,
  });
  const done = stream.run();
  return { stream, events, states, controller, done, ticket };
}

const snapshot = (open: Ask[] = []): ServerEvent => ({ type: "snapshot", snapshot: { open: open.map(summarize), recent: [], whole: open } });
const socket = (i: number) => FakeSocket.all[i]!;
const flush = () => vi.advanceTimersByTimeAsync(0);

describe("event stream", () => {
  beforeEach(() => {
    FakeSocket.all = [];
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("opens the socket with a fresh ticket as a subprotocol beside loopback.v1", async () => {
    const { controller } = start();
    await flush();
    expect(socket(0).url).toBe("ws://relay.test/api/v1/events");
    expect(socket(0).protocols).toEqual(["loopback.v1", "loopback.ticket.t1"]);
    controller.abort();
  });

  it("goes live on the snapshot and applies events in order", async () => {
    const { events, states, controller } = start();
    await flush();
    socket(0).open();
    const ask = fresh(aQuestion());
    socket(0).deliver(snapshot());
    socket(0).deliver({ type: "ask.opened", ask });
    await flush();
    expect(events.map((e) => e.type)).toEqual(["snapshot", "ask.opened"]);
    expect(states.at(-1)?.state).toBe("live");
    controller.abort();
  });

  it("sends a small keepalive frame every 20 seconds, which keeps an MV3 worker alive", async () => {
    const { controller } = start();
    await flush();
    socket(0).open();
    await vi.advanceTimersByTimeAsync(KEEPALIVE_MS * 3);
    expect(socket(0).sent).toEqual(Array(3).fill('{"type":"keepalive"}'));
    controller.abort();
  });

  it("reconnects after a drop with a new ticket, and starts again from a new snapshot", async () => {
    const { ticket, states, controller } = start();
    await flush();
    socket(0).open();
    socket(0).deliver(snapshot());
    await flush();
    socket(0).drop("going away");
    await flush();
    expect(states.at(-1)).toMatchObject({ state: "retrying", reason: expect.stringContaining("going away") });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(ticket).toHaveBeenCalledTimes(2);
    expect(socket(1).protocols).toEqual(["loopback.v1", "loopback.ticket.t2"]);
    controller.abort();
  });

  it("once the relay is back from an outage, it tries within 600 ms and is live on the snapshot, however long the outage", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0.999);
    const backAt = Date.now() + 10_000;
    const ticket = vi.fn(async () => {
      const away = backAt - Date.now();
      // Through a proxy, as a restart looks: first nothing answers at all, then the proxy answers 502.
      if (away > 5_000) throw new RelayError("unreachable", "could not be reached");
      if (away > 0) throw new RelayError("unreachable", "The relay answered 502 Bad Gateway", 502);
      return { ticket: "back", expiresAt: "" };
    });
    const { states, controller } = start(ticket);
    await vi.advanceTimersByTimeAsync(10_000 - 1);
    expect(FakeSocket.all).toHaveLength(0);
    expect(ticket.mock.calls.length).toBeGreaterThan(20);
    await vi.advanceTimersByTimeAsync(1 + 600);
    expect(FakeSocket.all).toHaveLength(1);
    socket(0).open();
    socket(0).deliver(snapshot());
    await flush();
    expect(states.at(-1)?.state).toBe("live");
    controller.abort();
  });

  it("while nothing at the relay's address answers, tries again every 300 ms at most", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0.999);
    const tries: number[] = [];
    const ticket = vi.fn(async () => {
      tries.push(Date.now());
      throw new RelayError("unreachable", "could not be reached");
    });
    const { controller } = start(ticket);
    await vi.advanceTimersByTimeAsync(20_000);
    controller.abort();
    const gaps = tries.slice(1).map((at, i) => at - tries[i]!);
    expect(gaps.length).toBeGreaterThan(60);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(300);
  });

  it("while the relay answers with an error, waits up to 600 ms between tries", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0.999);
    const tries: number[] = [];
    const ticket = vi.fn(async () => {
      tries.push(Date.now());
      throw new RelayError("unreachable", "The relay answered 502 Bad Gateway", 502);
    });
    const { controller } = start(ticket);
    await vi.advanceTimersByTimeAsync(5_000);
    controller.abort();
    const gaps = tries.slice(1).map((at, i) => at - tries[i]!);
    expect(Math.max(...gaps)).toBe(600);
  });

  it("retries sooner when nudged", async () => {
    vi.spyOn(Math, "random").mockReturnValue(0.999);
    const down = () => new RelayError("unreachable", "The relay answered 503 Service Unavailable", 503);
    const ticket = vi.fn().mockRejectedValueOnce(down()).mockRejectedValueOnce(down());
    ticket.mockResolvedValue({ ticket: "ok", expiresAt: "" });
    const { stream, controller } = start(ticket);
    await flush();
    await vi.advanceTimersByTimeAsync(700);
    expect(ticket).toHaveBeenCalledTimes(2);
    stream.nudge();
    await flush();
    expect(ticket).toHaveBeenCalledTimes(3);
    controller.abort();
  });

  it("stops for good when the token is refused", async () => {
    const ticket = vi.fn().mockRejectedValue(new RelayError("unauthorized", "That token is not known here.", 401));
    const { states, done } = start(ticket);
    await done;
    expect(states.at(-1)).toEqual({ state: "stopped", kind: "unauthorized", reason: "That token is not known here." });
    expect(ticket).toHaveBeenCalledTimes(1);
  });

  it("stops for good, without asking for another ticket, when the relay closes the socket for a revoked token", async () => {
    const { states, done, ticket } = start();
    await flush();
    socket(0).open();
    socket(0).deliver(snapshot());
    await flush();
    socket(0).drop("token revoked", 4401);
    await done;
    expect(states.at(-1)).toEqual({ state: "stopped", kind: "unauthorized", reason: "The relay no longer accepts this token (token revoked)." });
    expect(ticket).toHaveBeenCalledTimes(1);
  });
});
