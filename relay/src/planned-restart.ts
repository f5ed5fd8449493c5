// A planned restart (an upgrade, a new configuration) that never closes the listening port, as nginx
// and HAProxy reload: on SIGHUP (`loopback restart` sends it) the relay starts the next process on
// the same port (SO_REUSEPORT), and once that one listens it stops listening itself, hands its waiting
// calls over (their clients resume on the next process) and leaves. Connections that arrive meanwhile
// queue on the next process, which answers them once the old one has let go of the store: one writer
// of the SQLite file at a time. A crash still closes the port until something starts a new relay.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Running } from "./server.ts";
import { SHIPPED, type Shipped } from "./shipped.ts";

/** Set in the next process's environment: it takes over from a running relay. */
const TAKES_OVER = "LOOPBACK_TAKES_OVER";
/** The longest the next process holds requests back for the old one to let go. */
const LET_GO_MS = 10_000;

export const pidFile = (dataDir: string) => join(dataDir, "loopback.pid");

/** The relay running on this data directory, if one does. */
export function runningPid(dataDir: string): number | undefined {
  if (!existsSync(pidFile(dataDir))) return undefined;
  const pid = Number(readFileSync(pidFile(dataDir), "utf8").trim());
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  // A relay killed after its parent left may stay a zombie until something reaps it.
  const stat = `/proc/${pid}/stat`;
  if (existsSync(stat) && / Z /.test(readFileSync(stat, "utf8").replace(/^.*\)/, ""))) return undefined;
  return pid;
}

/** In a process that takes over: settles once the old one has let go (or after LET_GO_MS). */
export function predecessorLetGo(): Promise<void> | undefined {
  if (!process.env[TAKES_OVER] || !process.send) return undefined;
  const { promise, resolve } = Promise.withResolvers<void>();
  const timer = setTimeout(resolve, LET_GO_MS);
  const done = () => {
    clearTimeout(timer);
    resolve();
  };
  process.on("message", (m) => m === "let-go" && done());
  process.on("disconnect", done);
  return promise;
}

/**
 * This process serves the data directory: the pid file names it, a process taking over tells the old
 * one it listens, and under systemd (`Type=notify`, `NotifyAccess=all`) the service's main process
 * becomes this one before the old one leaves.
 */
export function serving(dataDir: string | undefined): void {
  if (dataDir) writeFileSync(pidFile(dataDir), `${process.pid}\n`);
  if (process.env.NOTIFY_SOCKET) Bun.spawnSync(["systemd-notify", "--ready", `--pid=${process.pid}`], { stdout: "ignore", stderr: "inherit" });
  if (process.env[TAKES_OVER]) process.send?.("listening");
}

/** Leaves the pid file to the next process, or removes it when none took over. */
export function leaving(dataDir: string | undefined): void {
  if (dataDir && runningPid(dataDir) === process.pid) rmSync(pidFile(dataDir), { force: true });
}

/**
 * The command that started this process, to start the next one with. A single executable's argv
 * names `bun` and the script inside it (`/$bunfs/root/…`), neither of which is a program on the
 * machine: it is started by its own path with the arguments after those two.
 */
export function sameCommand(argv: string[] = process.argv, execPath = process.execPath, shipped: Shipped = SHIPPED): string[] {
  return [execPath, ...argv.slice(shipped === "binary" ? 2 : 1)];
}

/**
 * On SIGHUP: starts the next process (the same program, arguments and environment) and, once it
 * listens, stops listening, hands over, lets go of the store and exits. A next process that fails to
 * start leaves this one serving.
 */
export function restartOnSignal(running: Running, dataDir: string | undefined): void {
  let restarting = false;
  process.on("SIGHUP", () => {
    if (restarting) return;
    restarting = true;
    console.log("Planned restart: starting the next process on the same port…");
    const servesOn = (why: string) => {
      restarting = false;
      console.error(`Planned restart: ${why}; this one serves on.`);
      if (dataDir) writeFileSync(pidFile(dataDir), `${process.pid}\n`);
    };
    let next: ReturnType<typeof Bun.spawn>;
    try {
      next = Bun.spawn(sameCommand(), {
        env: { ...process.env, [TAKES_OVER]: String(process.pid) },
        stdio: ["ignore", "inherit", "inherit"],
        ipc: (message) => {
          if (message !== "listening") return;
          void (async () => {
            running.stopListening();
            await running.stop();
            next.send("let-go");
            next.unref();
            console.log(`Planned restart: handed over to process ${next.pid}.`);
            process.exit(0);
          })();
        },
      });
    } catch (e) {
      // Thrown out of a signal handler, it would end the relay the restart was to keep serving.
      servesOn(`the next process could not start (${(e as Error).message})`);
      return;
    }
    void next.exited.then((code) => {
      if (restarting) servesOn(`the next process exited (${code}) before it listened`);
    });
  });
}
