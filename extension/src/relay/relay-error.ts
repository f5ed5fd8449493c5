import type { Problem } from "@loopback/shared/generated/types";

/**
 * Why a call to the relay failed, sorted by what the person can do about it:
 * `unreachable` (check the address or the network), `unauthorized` (a new token),
 * `reload` (the relay was rolled back: reload the client), or `refused` (the relay's own words).
 */
export type RelayErrorKind = "unreachable" | "unauthorized" | "reload" | "refused";

export class RelayError extends Error {
  constructor(
    readonly kind: RelayErrorKind,
    message: string,
    readonly status = 0,
    readonly problem?: Problem,
  ) {
    super(message);
    this.name = "RelayError";
  }
}

export function describeError(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
