// When this build was made: `LOOPBACK_BUILD` when set, the moment a shipped build was made, otherwise
// the newest change among the sources this process runs, which is what a checkout's "build" is.
import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { BUILT_AT } from "./shipped.ts";

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    else if (entry.isFile()) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

export function buildStamp(env: Record<string, string | undefined> = process.env): string {
  if (env.LOOPBACK_BUILD) return env.LOOPBACK_BUILD;
  if (BUILT_AT) return BUILT_AT;
  const root = resolve(import.meta.dir, "../..");
  const newest = Math.max(newestMtime(join(root, "relay/src")), newestMtime(join(root, "shared/src")));
  return new Date(Math.floor(newest)).toISOString();
}
