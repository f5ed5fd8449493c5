// Whether a process has exited, whether or not anyone has reaped it: a relay that a planned restart
// started is not the test's child, and may wait on a parent that never reaps it.
import { readdirSync, readFileSync } from "node:fs";

/** Whether a thread has exited: a zombie, or already gone. */
const exited = (stat: string) => {
  try {
    return readFileSync(stat, "utf8").split(") ").at(-1)?.startsWith("Z") ?? true;
  } catch {
    return true;
  }
};

/**
 * Every thread has exited, not the first alone: a killed process's first thread is a zombie while
 * the others still hold its files, a listening port among them.
 */
export function processGone(pid: number): boolean {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return true;
  }
  return threads.every((tid) => exited(`/proc/${pid}/task/${tid}/stat`));
}
