// The event socket at /api/v1/events: a snapshot first, then every change in the caller's space.
// Fan-out uses Bun's native topics, one per space, so a change is serialized once however many
// inboxes are open, and a consumer too slow to keep up is closed rather than buffered for.
import type { Server, ServerWebSocket, WebSocketHandler } from "bun";
import type { AskEvent, SnapshotEvent } from "@loopback/shared/generated/types";
import { REVISIONS } from "@loopback/shared/generated/revision";
import { problem } from "@loopback/shared/problems";
import { EVENTS_SUBPROTOCOL, TICKET_SUBPROTOCOL_PREFIX } from "@loopback/shared/wire-names";
import type { Caller } from "../auth/gate.ts";
import { assertAllowedOrigin } from "../http/allowed-origin.ts";
import { problemResponse } from "../http/problem-response.ts";
import { clientRevision } from "../http/revision-headers.ts";
import type { Relay } from "../relay.ts";
import { downgradeEvent } from "../revisions/downgrade.ts";

/** Clients send small keepalive frames (an MV3 worker lives on messages); anything bigger is abuse. */
export const MAX_CLIENT_FRAME_BYTES = 4096;
export const MAX_CLIENT_FRAMES_PER_MINUTE = 120;
/** A consumer this far behind is dropped; it reconnects and starts from a fresh snapshot. */
export const BACKPRESSURE_LIMIT_BYTES = 8 * 1024 * 1024;

export interface SocketData {
  caller: Caller;
  /** The revision this client reads: every frame it is sent is of that revision. */
  revision: string;
  frames: { count: number; since: number };
}

// One topic per space and revision, so a change is serialized once per revision some inbox reads.
const topic = (spaceId: string, revision: string) => `space:${spaceId}:r${revision}`;

/** Authenticates an upgrade request, or answers it with a refusal before any upgrade happens. */
export async function upgradeEvents(relay: Relay, request: Request, server: Server<SocketData>, address: string, headers: Record<string, string>): Promise<Response | undefined> {
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
      caller = await relay.authenticate(request.headers.get("authorization"), address);
      revision = clientRevision(request);
    }
    const ok = server.upgrade(request, {
      data: { caller, revision, frames: { count: 0, since: Date.now() } },
      headers: { "Sec-WebSocket-Protocol": EVENTS_SUBPROTOCOL, ...headers },
    });
    if (!ok) throw problem("route.not_found", "This address takes WebSocket upgrades.");
    return undefined;
  } catch (e) {
    return problemResponse(e, headers);
  }
}

/** Closes a revoked token's sockets with this code, which clients take as "sign in again", not "reconnect". */
export const REVOKED_CLOSE_CODE = 4401;

export function eventSocket(relay: Relay, server: () => Server<SocketData>): WebSocketHandler<SocketData> {
  const byToken = new Map<string, Set<ServerWebSocket<SocketData>>>();
  relay.revocations.watch({
    held: () => byToken.keys(),
    revoked(tokenIds) {
      for (const id of tokenIds) for (const ws of byToken.get(id) ?? []) ws.close(REVOKED_CLOSE_CODE, "token revoked");
    },
  });
  relay.bus.listen((spaceId, event) => {
    const srv = server();
    // Serialized only when some inbox of that space listens: an ask can be large.
    for (const revision of REVISIONS) {
      const t = topic(spaceId, revision);
      if (srv.subscriberCount(t) === 0) continue;
      const frame = downgradeEvent(event, revision);
      if (frame) srv.publish(t, JSON.stringify(frame));
    }
  });
  return {
    maxPayloadLength: MAX_CLIENT_FRAME_BYTES,
    backpressureLimit: BACKPRESSURE_LIMIT_BYTES,
    closeOnBackpressureLimit: true,
    // Protocol pings keep proxies from cutting a quiet connection.
    idleTimeout: 60,
    sendPings: true,
    open(ws: ServerWebSocket<SocketData>) {
      const id = ws.data.caller.tokenId;
      byToken.set(id, (byToken.get(id) ?? new Set()).add(ws));
      // The snapshot is read from the store while changes go on: every change published meanwhile is
      // sent after it (an inbox keeps the newer copy of an ask), and the socket joins its topic in
      // the same turn as the last of them, so no change falls between the snapshot and the stream.
      const { caller, revision } = ws.data;
      const meanwhile: AskEvent[] = [];
      const stopCapture = relay.bus.listen((spaceId, event) => {
        if (spaceId === caller.spaceId) meanwhile.push(event);
      });
      relay.asks.snapshot(caller).then(
        (snapshot) => {
          stopCapture();
          if (ws.readyState !== WebSocket.OPEN) return;
          const first: SnapshotEvent = { type: "snapshot", snapshot };
          ws.send(JSON.stringify(downgradeEvent(first, revision)));
          for (const event of meanwhile) {
            const frame = downgradeEvent(event, revision);
            if (frame) ws.send(JSON.stringify(frame));
          }
          ws.subscribe(topic(caller.spaceId, revision));
        },
        (e) => {
          stopCapture();
          console.warn("event socket: could not read the snapshot", e);
          ws.close(1011, "could not read the inbox");
        },
      );
    },
    close(ws) {
      const id = ws.data.caller.tokenId;
      const held = byToken.get(id);
      held?.delete(ws);
      if (held && !held.size) byToken.delete(id);
    },
    message(ws) {
      // Client frames are keepalives: accepted and ignored, within a rate.
      const f = ws.data.frames;
      const now = Date.now();
      if (now - f.since > 60_000) {
        f.count = 0;
        f.since = now;
      }
      if (++f.count > MAX_CLIENT_FRAMES_PER_MINUTE) ws.close(1008, "too many frames");
    },
  };
}
