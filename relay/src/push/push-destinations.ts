// Where the relay may push: a person's token names any URL it likes as a device's endpoint, so the
// relay only ever connects to push services out on the public internet, or to the hosts the operator
// lists (`LOOPBACK_PUSH_HOSTS`). The check runs when a device is added and again on every push, inside
// the connection's own name lookup: the address checked is the address connected to, so a name that
// resolves elsewhere the second time (DNS rebinding) reaches nothing.
import { isIP } from "node:net";
import type { LookupAddress } from "node:dns";
import { lookup as systemLookup, Resolver } from "node:dns/promises";
import { problem } from "@loopback/shared/problems";
import { isPublicAddress } from "./public-address.ts";

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
/** The `lookup` option of `https.request`. */
export type Lookup = (hostname: string, options: { all?: boolean }, callback: LookupCallback) => void;

const stripBrackets = (host: string) => (host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host);

export class PushDestinations {
  #resolver?: Resolver;

  constructor(
    /** `host`, `host:port` or `*.domain` entries; when there are any, only they are pushed to, whatever they resolve to. */
    private allowedHosts: string[],
    /** DNS servers (`address` or `address:port`) to resolve endpoints with; the system's resolver when empty. */
    dnsServers: string[] = [],
  ) {
    if (dnsServers.length) {
      this.#resolver = new Resolver();
      this.#resolver.setServers(dnsServers);
    }
  }

  /** Whether the operator listed this endpoint's host: then it is pushed to wherever it resolves. */
  listed(url: URL): boolean {
    const hostname = url.hostname.toLowerCase();
    return this.allowedHosts.some((entry) => {
      const e = entry.toLowerCase();
      if (e.startsWith("*.")) return hostname.endsWith(e.slice(1));
      return e === hostname || e === url.host.toLowerCase();
    });
  }

  /** Refuses an endpoint the relay must not push to: unlisted, or resolving to any address that is not public. */
  async check(url: URL): Promise<void> {
    if (this.listed(url)) return;
    if (this.allowedHosts.length) throw problem("push.endpoint_refused", `Its host is not one of this relay's push services.`);
    const host = stripBrackets(url.hostname);
    const addresses = isIP(host) ? [host] : await this.#resolve(host).catch(() => {
      throw problem("push.endpoint_refused", `Its host ${url.hostname} does not resolve.`);
    });
    if (!addresses.length || !addresses.every(isPublicAddress)) throw problem("push.endpoint_refused", `Its host ${url.hostname} is not on the public internet.`);
  }

  /** A `lookup` for connecting to `url`: it resolves as `check` does and hands on only addresses that pass. */
  lookupFor(url: URL): Lookup {
    const listed = this.listed(url);
    return (hostname, options, callback) => {
      this.#resolve(hostname).then(
        (addresses) => {
          const usable = listed ? addresses : addresses.filter(isPublicAddress);
          if (!usable.length || usable.length < addresses.length) {
            callback(Object.assign(new Error(`push: ${hostname} resolves to an address that is not public`), { code: "EPUSHREFUSED" }), []);
            return;
          }
          const all = usable.map((address) => ({ address, family: isIP(address) }));
          if (options.all) callback(null, all);
          else callback(null, all[0]!.address, all[0]!.family);
        },
        (e: NodeJS.ErrnoException) => callback(e, []),
      );
    };
  }

  /** Every address `host` resolves to, through the configured DNS servers or the system's resolver. */
  async #resolve(host: string): Promise<string[]> {
    if (isIP(host)) return [host];
    // RFC 6761: these names are this machine, whatever a resolver says.
    if (host === "localhost" || host.endsWith(".localhost")) return ["127.0.0.1"];
    const resolver = this.#resolver;
    if (!resolver) return (await systemLookup(host, { all: true })).map((a) => a.address);
    const none = (e: NodeJS.ErrnoException) => (e.code === "ENODATA" || e.code === "ENOTFOUND" ? [] : Promise.reject(e));
    const [v4, v6] = await Promise.all([resolver.resolve4(host).catch(none), resolver.resolve6(host).catch(none)]);
    if (!v4.length && !v6.length) throw Object.assign(new Error(`push: ${host} does not resolve`), { code: "ENOTFOUND" });
    return [...v4, ...v6];
  }
}
