// How this relay reached its machine: a clone of the repository, the single executable, or the npm
// package. The shipped builds (relay/scripts/ship.ts) fix the two constants below at build time and
// carry the relay's files (migrations, the web inbox) beside their bundled code; a clone reads them
// from the source tree. Texts the relay prints name the command that works where it runs.
import { delimiter, dirname, relative, basename, isAbsolute } from "node:path";
import relayPackage from "../package.json" with { type: "json" };

declare const LOOPBACK_SHIPPED: "binary" | "package" | undefined;
declare const LOOPBACK_BUILT_AT: string | undefined;

export type Shipped = "clone" | "binary" | "package";

export const SHIPPED: Shipped = typeof LOOPBACK_SHIPPED === "string" ? LOOPBACK_SHIPPED : "clone";
/** When a shipped build was made; a clone has no such moment (see build-stamp.ts). */
export const BUILT_AT: string | undefined = typeof LOOPBACK_BUILT_AT === "string" ? LOOPBACK_BUILT_AT : undefined;
export const VERSION: string = relayPackage.version;
/** The npm package's name: `loopback` and the `@loopback` scope belong to the LoopBack framework. */
export const PACKAGE_NAME = "loopback-relay";

/** What people type to run the CLI here, before its command (`token create …`). */
export function cliCommand(shipped: Shipped = SHIPPED): string {
  if (shipped === "package") return `npx ${PACKAGE_NAME}`;
  if (shipped === "binary") return binaryCommand(process.execPath, process.cwd(), process.env.PATH ?? "");
  return "npm run loopback --";
}

/** What people type to start the relay here; flags (`--port 8371`) follow it. */
export function serveCommand(shipped: Shipped = SHIPPED): string {
  return shipped === "clone" ? "npm run relay --" : `${cliCommand(shipped)} serve`;
}

/** The executable as its user would type it: by name when it is on PATH, else by a path from here. */
export function binaryCommand(executable: string, cwd: string, path: string): string {
  if (path.split(delimiter).includes(dirname(executable))) return basename(executable);
  const fromHere = relative(cwd, executable);
  if (!fromHere.startsWith("..") && !isAbsolute(fromHere)) return `./${fromHere}`;
  return executable;
}
