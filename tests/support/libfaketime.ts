// Where Debian's `faketime` package puts the library a relay is run under to step its wall clock:
// under the machine's multiarch directory (x86_64-linux-gnu, aarch64-linux-gnu, …), or where
// LOOPBACK_LIBFAKETIME says.
import { existsSync, readdirSync } from "node:fs";

const MULTIARCH: Partial<Record<NodeJS.Architecture, string>> = { x64: "x86_64-linux-gnu", arm64: "aarch64-linux-gnu" };

function find(): string {
  if (process.env.LOOPBACK_LIBFAKETIME) return process.env.LOOPBACK_LIBFAKETIME;
  const at = (dir: string) => `/usr/lib/${dir}/faketime/libfaketime.so.1`;
  const installed = existsSync("/usr/lib") ? readdirSync("/usr/lib").map(at).find((path) => existsSync(path)) : undefined;
  return installed ?? at(MULTIARCH[process.arch] ?? `${process.arch}-linux-gnu`);
}

export const LIBFAKETIME = find();
