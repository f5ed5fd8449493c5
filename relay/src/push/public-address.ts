// Whether an address is out on the public internet, where push services are: never the relay's own
// machine or network (loopback, private, link-local, CGNAT, unique-local), nor multicast, unspecified,
// reserved or documentation ranges, nor an IPv6 form that carries an IPv4 address to one of those.
import ipaddr from "ipaddr.js";

/** Global unicast IPv6 (RFC 4291): everything public lies in 2000::/3. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

export function isPublicAddress(address: string): boolean {
  // A zone index (`fe80::1%eth0`) names an interface of this machine.
  if (address.includes("%") || !ipaddr.isValid(address)) return false;
  // `process` reads an IPv4-mapped IPv6 address (::ffff:127.0.0.1) as the IPv4 address it carries.
  const ip = ipaddr.process(address);
  if (ip.kind() === "ipv6" && !ip.match(GLOBAL_UNICAST_V6)) return false;
  // Only plain unicast passes: 6to4, Teredo and NAT64 forms are refused with the rest, as they reach
  // IPv4 addresses this check would not see.
  return ip.range() === "unicast";
}
