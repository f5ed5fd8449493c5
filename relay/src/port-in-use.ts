// Whether something already listens on the relay's port. The relay listens with SO_REUSEPORT so that a
// planned restart's next process can listen beside it (planned-restart.ts); the kernel would then
// also let a second, unrelated relay of the same user share the port and take half its connections.
// A start that is not taking over looks first, and refuses a port someone holds.
import { connect } from "node:net";

/** The address to look at for a host the relay binds: any-address binds are reached on loopback. */
const reachable = (host: string) => (host === "0.0.0.0" || host === "" ? "127.0.0.1" : host === "::" ? "::1" : host);

export function portInUse(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  if (!port) return Promise.resolve(false);
  return new Promise((resolve) => {
    const socket = connect({ host: reachable(host), port });
    const done = (inUse: boolean) => {
      socket.destroy();
      resolve(inUse);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}
