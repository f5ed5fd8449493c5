// One-time passes onto the event socket for clients that cannot send headers there (browsers). A
// ticket works once, within a minute, so one that turns up in a log is of no use to anyone. Tickets
// are in the store, hashed: one fetched from one replica opens a socket on another. A token holds a
// capped number of unused ones; a revoked token's are refused wherever they are redeemed.
import type { EventTicket } from "@loopback/shared/generated/types";
import type { Caller } from "../auth/gate.ts";
import { Clock } from "../clock.ts";
import { hashSecret, newSecret } from "../ids.ts";
import { DEFAULT_EVENT_TICKET_TTL_S, DEFAULT_MAX_EVENT_TICKETS } from "../config.ts";
import { refuseOverCap } from "../limits/per-token-cap.ts";
import type { TicketRecords } from "../storage/store.ts";

export const TICKET_TTL_MS = DEFAULT_EVENT_TICKET_TTL_S * 1000;

export class TicketBook {
  constructor(
    private records: TicketRecords,
    private clock: Clock = new Clock(),
    private limits: { ttlMs: number; maxPerToken: number } = { ttlMs: TICKET_TTL_MS, maxPerToken: DEFAULT_MAX_EVENT_TICKETS },
  ) {}

  /** A ticket for `caller`, whose socket then speaks the revision the client named when asking for it. */
  async issue(caller: Caller, revision: string): Promise<EventTicket> {
    const now = this.clock.wallMs();
    const ticket = newSecret("tkt");
    const expiresAt = new Date(now + this.limits.ttlMs).toISOString();
    const issued = await this.records.issue(hashSecret(ticket), caller.tokenId, revision, expiresAt, { max: this.limits.maxPerToken, now: new Date(now).toISOString() });
    if (!issued) refuseOverCap({ code: "ticket.too_many", max: this.limits.maxPerToken, env: "LOOPBACK_MAX_EVENT_TICKETS" });
    return { ticket, expiresAt };
  }

  /** The caller a ticket was issued to and the revision it reads, once; afterwards, once expired or once its token is revoked, nothing. */
  redeem(ticket: string): Promise<{ caller: Caller; revision: string } | undefined> {
    return this.records.redeem(hashSecret(ticket), new Date(this.clock.wallMs()).toISOString());
  }

  sweep(): Promise<void> {
    return this.records.sweep(new Date(this.clock.wallMs()).toISOString());
  }
}
