// One-time passes onto the event socket for clients that cannot send headers there (browsers). A
// ticket works once, within a minute, so one that turns up in a log is of no use to anyone. A token
// holds a capped number of unused ones; revoking the token voids them.
import type { EventTicket } from "@loopback/shared/generated/types";
import type { Caller } from "../auth/gate.ts";
import { hashSecret, newSecret } from "../ids.ts";
import { DEFAULT_EVENT_TICKET_TTL_S, DEFAULT_MAX_EVENT_TICKETS } from "../config.ts";
import { assertUnderCap } from "../limits/per-token-cap.ts";

export const TICKET_TTL_MS = DEFAULT_EVENT_TICKET_TTL_S * 1000;

export class TicketBook {
  #byHash = new Map<string, { caller: Caller; revision: string; expires: number }>();

  constructor(private limits: { ttlMs: number; maxPerToken: number } = { ttlMs: TICKET_TTL_MS, maxPerToken: DEFAULT_MAX_EVENT_TICKETS }) {}

  /** A ticket for `caller`, whose socket then speaks the revision the client named when asking for it. */
  issue(caller: Caller, revision: string): EventTicket {
    this.sweep();
    let held = 0;
    for (const e of this.#byHash.values()) if (e.caller.tokenId === caller.tokenId) held++;
    assertUnderCap({ code: "ticket.too_many", max: this.limits.maxPerToken, env: "LOOPBACK_MAX_EVENT_TICKETS" }, held);
    const ticket = newSecret("tkt");
    const expires = Date.now() + this.limits.ttlMs;
    this.#byHash.set(hashSecret(ticket), { caller, revision, expires });
    return { ticket, expiresAt: new Date(expires).toISOString() };
  }

  /** The caller a ticket was issued to and the revision it reads, once; afterwards, or once expired, nothing. */
  redeem(ticket: string): { caller: Caller; revision: string } | undefined {
    const key = hashSecret(ticket);
    const entry = this.#byHash.get(key);
    this.#byHash.delete(key);
    if (!entry || entry.expires < Date.now()) return undefined;
    return { caller: entry.caller, revision: entry.revision };
  }

  /** Forgets every ticket of these tokens (they were revoked). */
  void(tokenIds: Set<string>): void {
    for (const [k, e] of this.#byHash) if (tokenIds.has(e.caller.tokenId)) this.#byHash.delete(k);
  }

  /** Token ids holding unused tickets. */
  holders(): Set<string> {
    return new Set([...this.#byHash.values()].map((e) => e.caller.tokenId));
  }

  sweep(): void {
    const now = Date.now();
    for (const [k, e] of this.#byHash) if (e.expires < now) this.#byHash.delete(k);
  }
}
