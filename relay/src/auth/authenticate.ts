// The caller behind an `Authorization` header, with guessing slowed: a valid token always passes; a
// refused one is counted against its client's address (limits/failure-limiter.ts), and an address
// that guesses too much is answered 429 instead of 401.
import { problem, LoopbackProblem } from "@loopback/shared/problems";
import type { Gate, Caller } from "./gate.ts";
import type { FailureLimiter } from "../limits/failure-limiter.ts";
import type { Clock } from "../clock.ts";
import { log } from "../logging/log.ts";

const authLog = log("auth");

export type Authenticate = (authorization: string | null, address: string) => Promise<Caller>;

export function authenticator(gate: Pick<Gate, "authenticate">, limiter: Pick<FailureLimiter, "refused">, clock: Pick<Clock, "wallMs">): Authenticate {
  return async (authorization, address) => {
    try {
      return await gate.authenticate(authorization);
    } catch (e) {
      if (e instanceof LoopbackProblem && e.code === "auth.invalid") {
        const limited = (await limiter.refused(address, clock.wallMs())) === "limited";
        // The address, never the token: a log reader must not be able to try it.
        authLog.warn(limited ? "rate-limited refused tokens from {address}" : "refused a token from {address}", { address, code: limited ? "auth.rate_limited" : e.code });
        if (limited) throw problem("auth.rate_limited");
      }
      throw e;
    }
  };
}
