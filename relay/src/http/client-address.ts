// Who is on the other end, for the failure limiter. Behind a reverse proxy every connection comes
// from the proxy, so the client's address is taken from X-Forwarded-For, but only the hops the
// operator named in LOOPBACK_TRUSTED_PROXIES are believed: anyone else could write that header.
import proxyaddr from "proxy-addr";

export type ClientAddress = (peer: string, forwardedFor: string | null) => string;

/** `trusted` lists addresses, CIDR ranges, or proxy-addr's names (`loopback`, `linklocal`, `uniquelocal`). */
export function clientAddress(trusted: string[]): ClientAddress {
  if (!trusted.length) return (peer) => peer;
  let trust: ReturnType<typeof proxyaddr.compile>;
  try {
    trust = proxyaddr.compile(trusted);
  } catch (e) {
    throw new Error(`LOOPBACK_TRUSTED_PROXIES must list addresses or CIDR ranges: ${(e as Error).message}`, { cause: e });
  }
  return (peer, forwardedFor) => {
    // proxy-addr reads a Node request; these two fields are all it looks at.
    const request = { headers: forwardedFor === null ? {} : { "x-forwarded-for": forwardedFor }, socket: { remoteAddress: peer } };
    return proxyaddr(request as unknown as Parameters<typeof proxyaddr>[0], trust);
  };
}
