// One-time passes onto the event socket for clients that cannot send headers there (browsers). A
// ticket works once, within a minute, so one that turns up in a log is of no use to anyone.
import type { EventTicket } from "@loopback/shared/generated/types";
import type { Caller } from "../auth/gate.ts";
import { hashSecret, newSecret } from "../ids.ts";

export const TICKET_TTL_MS = 60_000;

export class TicketBook {
  #byHash = new Map<string, { caller: Caller; expires: number }>();

  issue(caller: Caller): EventTicket {
    this.sweep();
    const ticket = newSecret("tkt");
    const expires = Date.now() + TICKET_TTL_MS;
    this.#byHash.set(hashSecret(ticket), { caller, expires });
    return { ticket, expiresAt: new Date(expires).toISOString() };
  }

  /** The caller a ticket was issued to, once; afterwards, or once expired, nothing. */
  redeem(ticket: string): Caller | undefined {
    const key = hashSecret(ticket);
    const entry = this.#byHash.get(key);
    this.#byHash.delete(key);
    if (!entry || entry.expires < Date.now()) return undefined;
    return entry.caller;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [k, e] of this.#byHash) if (e.expires < now) this.#byHash.delete(k);
  }
}
