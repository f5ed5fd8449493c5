// `loopback restart`: the running relay starts its next process and hands over to it (planned-restart.ts).
import type { Config } from "../config.ts";
import { runningPid } from "../planned-restart.ts";
import { fail } from "./fail.ts";

export function restart(config: Config): void {
  const pid = runningPid(config.dataDir);
  if (!pid) fail(`No relay runs on ${config.dataDir}.`);
  process.kill(pid, "SIGHUP");
  console.log(`Asked relay ${pid} to restart; it hands over to its next process without closing the port.`);
}
