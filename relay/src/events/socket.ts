// The event socket at /api/v1/events: a snapshot first, then every change in the caller's space.
// A change is serialized once per revision however many inboxes are open, and a consumer too slow
// to keep up is closed rather than buffered for. A space's few inboxes are sent it at once; past
// `DIRECT_SENDS` it goes through Bun's native topic, whose one copy reaches them all at the end of
// the event loop's turn, after whatever else that turn does (~0.2 ms after a pause).
import type { Server, ServerWebSocket, WebSocketHandler } from "bun";
import type { AskEvent } from "@loopback/shared/generated/types";
import { REVISIONS } from "@loopback/shared/generated/revision";
import { LoopbackProblem, problem } from "@loopback/shared/problems";
import { EVENTS_SUBPROTOCOL, TICKET_SUBPROTOCOL_PREFIX } from "@loopback/shared/wire-names";
import type { Caller } from "../auth/gate.ts";
import { assertPerson } from "../auth/who-sees-an-ask.ts";
import type { RevocationWatch } from "../auth/revocation-watch.ts";
import type { AskEventBus } from "../asks/ask-event-bus.ts";
import type { AskService } from "../asks/ask-service.ts";
import type { Config } from "../config.ts";
import type { TicketBook } from "../auth/event-tickets.ts";
import type { Clock } from "../clock.ts";
import { assertAllowedOrigin } from "../http/allowed-origin.ts";
import { problemResponse } from "../http/problem-response.ts";
import { clientRevision } from "../http/revision-headers.ts";
import { downgradeEvent, snapshotFor } from "../revisions/downgrade.ts";
import { log } from "../logging/log.ts";

/** Clients send small keepalive frames (an MV3 worker lives on messages); anything bigger is abuse. */
export const MAX_CLIENT_FRAME_BYTES = 4096;
export const MAX_CLIENT_FRAMES_PER_MINUTE = 120;
const FRAME_WINDOW_MS = 60_000;
/** A consumer this far behind is dropped; it reconnects and starts from a fresh snapshot. */
export const BACKPRESSURE_LIMIT_BYTES = 8 * 1024 * 1024;
/** Changes held for a socket whose snapshot is still on its way; past this many it is closed to start afresh. */
export const MAX_HELD_EVENTS = 1_000;
/** Held changes go out while less than this is still buffered for the socket, well under the limit. */
const FLUSH_BELOW_BYTES = 1024 * 1024;
const FLUSH_RETRY_MS = 50;
/** Inboxes of one space (and revision) sent a change one by one; more share a native topic's copy. */
export const DIRECT_SENDS = 32;

export interface SocketData {
  caller: Caller;
  /** The revision this client reads: every frame it is sent is of that revision. */
  revision: string;
  /** Client frames counted since `since`, on the monotonic clock. */
  frames: { count: number; since: number };
  /** Its token was revoked: it is closing, and nothing more is sent to it. */
  revoked?: boolean;
  /**
   * Until its snapshot and what was held behind it are out: the changes held meanwhile, how to stop
   * holding them, and whether the snapshot is out (nothing held may go before it).
   */
  pending?: { held: AskEvent[]; stop: () => void; flushing: boolean; out: boolean };
}

/** What the event socket uses of the relay. */
export interface EventSocketServices {
  config: Pick<Config, "publicUrl" | "allowedOrigins" | "maxSocketsPerToken">;
  authenticate(authorization: string | null, address: string): Promise<Caller>;
  tickets: Pick<TicketBook, "redeem">;
  revocations: Pick<RevocationWatch, "watch" | "beforeSending">;
  bus: Pick<AskEventBus, "listen" | "onResync">;
  asks: Pick<AskService, "snapshot" | "wholeSnapshot">;
  /** Times the client frames' window. */
  clock: Pick<Clock, "monoMs">;
}

// One topic per space and revision, so a change is serialized once per revision some inbox reads.
const topic = (spaceId: string, revision: string) => `space:${spaceId}:r${revision}`;

/** Each relay's open sockets by token id, and upgrades accepted but not yet open: sockets are capped per token. */
interface OpenSockets {
  byToken: Map<string, Set<ServerWebSocket<SocketData>>>;
  opening: Map<string, number>;
}
const openSockets = new WeakMap<EventSocketServices, OpenSockets>();
function socketsOf(relay: EventSocketServices): OpenSockets {
  let held = openSockets.get(relay);
  if (!held) openSockets.set(relay, (held = { byToken: new Map(), opening: new Map() }));
  return held;
}
const bump = (counts: Map<string, number>, key: string, by: number) => {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
};

/** Authenticates an upgrade request, or answers it with a refusal before any upgrade happens. */
export async function upgradeEvents(relay: EventSocketServices, request: Request, server: Server<SocketData>, address: string, headers: Record<string, string>): Promise<Response | undefined> {
  try {
    const offered = (request.headers.get("sec-websocket-protocol") ?? "").split(",").map((s) => s.trim());
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") throw problem("route.not_found", "This address takes WebSocket upgrades.");
    assertAllowedOrigin(request, relay.config);
    if (!offered.includes(EVENTS_SUBPROTOCOL)) throw problem("ticket.invalid", `Offer the subprotocol ${EVENTS_SUBPROTOCOL}.`);
    const ticket = offered.find((p) => p.startsWith(TICKET_SUBPROTOCOL_PREFIX));
    let caller: Caller;
    let revision: string;
    if (ticket) {
      // Refused once its token is revoked, by whichever process: the store reads the token with it.
      const redeemed = await relay.tickets.redeem(ticket.slice(TICKET_SUBPROTOCOL_PREFIX.length));
      if (!redeemed) throw problem("ticket.invalid");
      ({ caller, revision } = redeemed);
    } else {
      caller = assertPerson(await relay.authenticate(request.headers.get("authorization"), address));
      revision = clientRevision(request);
    }
    const sockets = socketsOf(relay);
    const id = caller.tokenId;
    const max = relay.config.maxSocketsPerToken;
    if ((sockets.byToken.get(id)?.size ?? 0) + (sockets.opening.get(id) ?? 0) >= max) {
      throw problem("sockets.too_many", `A token may hold ${max} at once on one relay (LOOPBACK_MAX_SOCKETS_PER_TOKEN).`);
    }
    // Counted from the upgrade until the socket opens (`open` takes it over, maybe within `upgrade`).
    bump(sockets.opening, id, 1);
    const ok = server.upgrade(request, {
      data: { caller, revision, frames: { count: 0, since: relay.clock.monoMs() } },
      headers: { "Sec-WebSocket-Protocol": EVENTS_SUBPROTOCOL, ...headers },
    });
    if (!ok) {
      bump(sockets.opening, id, -1);
      throw problem("route.not_found", "This address takes WebSocket upgrades.");
    }
    return undefined;
  } catch (e) {
    return problemResponse(e, headers);
  }
}

/** Closes a revoked token's sockets with this code, which clients take as "sign in again", not "reconnect". */
export const REVOKED_CLOSE_CODE = 4401;

export function eventSocket(relay: EventSocketServices, server: () => Server<SocketData>): WebSocketHandler<SocketData> {
  const { byToken, opening } = socketsOf(relay);
  /** The sockets that hear each topic's changes, as its native topic has them. */
  const members = new Map<string, Set<ServerWebSocket<SocketData>>>();
  const join = (ws: ServerWebSocket<SocketData>) => {
    const t = topic(ws.data.caller.spaceId, ws.data.revision);
    ws.subscribe(t);
    members.set(t, (members.get(t) ?? new Set()).add(ws));
  };
  const leave = (ws: ServerWebSocket<SocketData>) => {
    const t = topic(ws.data.caller.spaceId, ws.data.revision);
    if (ws.readyState === WebSocket.OPEN) ws.unsubscribe(t);
    const joined = members.get(t);
    if (joined?.delete(ws) && !joined.size) members.delete(t);
  };
  relay.revocations.watch({
    held: () => byToken.keys(),
    revoked(tokenIds) {
      for (const id of tokenIds) {
        for (const ws of byToken.get(id) ?? []) {
          // Out of its topic first: nothing published from now on reaches it while it closes.
          ws.data.revoked = true;
          leave(ws);
          ws.close(REVOKED_CLOSE_CODE, "token revoked");
        }
      }
    },
  });
  /**
   * Sends the space as the store holds it now, then the stream. The snapshot is read from the store
   * while changes go on, and may take long to reach a slow reader: every change published meanwhile
   * is held, sent after it once it is out (an inbox keeps the newer copy of an ask), and the socket
   * joins its topic in the same turn as the last of them, so no change falls between the snapshot and
   * the stream, and none piles up behind a snapshot still on its way (which would cut the reader off
   * at the backpressure limit).
   */
  function sendSnapshot(ws: ServerWebSocket<SocketData>): void {
    const { caller, revision } = ws.data;
    leave(ws);
    ws.data.pending?.stop();
    const held: AskEvent[] = [];
    const stop = relay.bus.listen((spaceId, event) => {
      if (spaceId !== caller.spaceId) return;
      held.push(event);
      if (held.length > MAX_HELD_EVENTS) {
        stop();
        ws.close(1013, "too far behind: reconnect for a fresh snapshot");
      }
    });
    const pending = { held, stop, flushing: false, out: false };
    ws.data.pending = pending;
    const readSnapshot = async () => {
      const snapshot = await snapshotFor(relay.asks, caller, revision);
      await relay.revocations.beforeSending();
      return snapshot;
    };
    readSnapshot().then(
      (snapshot) => {
        // A later snapshot (a resync) was begun meanwhile: this one, read earlier, may be older than
        // what that one's held changes say, and must not follow them.
        if (ws.data.pending !== pending) return;
        if (ws.readyState !== WebSocket.OPEN || ws.data.revoked) return stop();
        ws.send(JSON.stringify({ type: "snapshot", snapshot }));
        pending.out = true;
        void flush(ws);
      },
      (e) => {
        stop();
        if (ws.data.pending !== pending) return;
        if (!(e instanceof LoopbackProblem && e.code === "database.unreachable")) log("events").warn("could not read the snapshot for an event socket", { error: e });
        // The inbox reconnects and reads its snapshot then.
        ws.close(1011, "could not read the inbox");
      },
    );
  }
  // Changes may have been missed: every inbox gets its space afresh (an inbox takes a snapshot as the whole truth).
  relay.bus.onResync(() => {
    for (const sockets of byToken.values()) for (const ws of sockets) if (ws.readyState === WebSocket.OPEN) sendSnapshot(ws);
  });
  const publish = (spaceId: string, event: AskEvent) => {
    // Serialized only when some inbox of that space listens: an ask can be large.
    for (const revision of REVISIONS) {
      const t = topic(spaceId, revision);
      const joined = members.get(t);
      if (!joined) continue;
      const frame = downgradeEvent(event, revision);
      if (!frame) continue;
      const text = JSON.stringify(frame);
      if (joined.size > DIRECT_SENDS) server().publish(t, text);
      else for (const ws of joined) ws.send(text);
    }
  };
  // No frame reaches a socket after its token's revoking commit: when a token may have been revoked
  // since the last check, the check runs (and closes the revoked sockets) before the frame goes out,
  // and later frames queue behind it, in order.
  let queued: Promise<void> | null = null;
  relay.bus.listen((spaceId, event) => {
    if (!queued) {
      const checking = relay.revocations.beforeSending();
      if (!checking) return publish(spaceId, event);
      queued = checking;
    }
    const next: Promise<void> = queued
      .then(() => relay.revocations.beforeSending())
      // A store that cannot answer must not leave every inbox behind: the timed check still closes a revoked socket.
      .catch((e) => log("events").warn("could not check revocations before sending", { error: e }))
      .then(() => publish(spaceId, event))
      .finally(() => {
        if (queued === next) queued = null;
      });
    queued = next;
  });
  /**
   * Sends a new socket what it holds once its snapshot is out, a little at a time as it drains, and
   * then joins it to its topic; until then it is tried again as the socket drains (and now and then).
   */
  async function flush(ws: ServerWebSocket<SocketData>): Promise<void> {
    const pending = ws.data.pending;
    if (!pending || !pending.out || pending.flushing) return;
    pending.flushing = true;
    try {
      await relay.revocations.beforeSending();
      while (pending.held.length && ws.getBufferedAmount() < FLUSH_BELOW_BYTES) {
        if (ws.readyState !== WebSocket.OPEN || ws.data.revoked || ws.data.pending !== pending) return;
        const frame = downgradeEvent(pending.held.shift()!, ws.data.revision);
        if (frame) ws.send(JSON.stringify(frame));
      }
      if (ws.readyState !== WebSocket.OPEN || ws.data.revoked || ws.data.pending !== pending) return;
      if (pending.held.length || ws.getBufferedAmount() > 0) {
        setTimeout(() => void flush(ws), FLUSH_RETRY_MS);
        return;
      }
      pending.stop();
      ws.data.pending = undefined;
      join(ws);
    } catch (e) {
      log("events").warn("could not send what it held to an event socket", { error: e });
      ws.close(1011, "could not send the inbox");
    } finally {
      pending.flushing = false;
    }
  }

  return {
    maxPayloadLength: MAX_CLIENT_FRAME_BYTES,
    backpressureLimit: BACKPRESSURE_LIMIT_BYTES,
    closeOnBackpressureLimit: true,
    // Protocol pings keep proxies from cutting a quiet connection.
    idleTimeout: 60,
    sendPings: true,
    open(ws: ServerWebSocket<SocketData>) {
      const id = ws.data.caller.tokenId;
      bump(opening, id, -1);
      byToken.set(id, (byToken.get(id) ?? new Set()).add(ws));
      sendSnapshot(ws);
    },
    drain(ws) {
      void flush(ws);
    },
    close(ws) {
      leave(ws);
      ws.data.pending?.stop();
      const id = ws.data.caller.tokenId;
      const held = byToken.get(id);
      held?.delete(ws);
      if (held && !held.size) byToken.delete(id);
    },
    message(ws) {
      // Client frames are keepalives: accepted and ignored, within a rate.
      const f = ws.data.frames;
      const now = relay.clock.monoMs();
      if (now - f.since > FRAME_WINDOW_MS) {
        f.count = 0;
        f.since = now;
      }
      if (++f.count > MAX_CLIENT_FRAMES_PER_MINUTE) ws.close(1008, "too many frames");
    },
  };
}
