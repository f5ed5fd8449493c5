// A real agent binary running headless in its own throwaway home: its output kept, its model
// server's observations at hand, and a way to end both.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import type { ModelServer, ObservedResults } from "./model-script.ts";

/** The binaries `npm ci` installs from the pinned devDependencies of `tests/package.json`. */
export const BIN = resolve(import.meta.dir, "../../../node_modules/.bin");

export interface AgentRun {
  readonly proc: Subprocess;
  /** The tool results the agent handed back to its model. */
  readonly results: ObservedResults;
  readonly model: ModelServer;
  /** Everything the agent printed so far, stdout and stderr. */
  readonly output: () => string;
  /** Resolves with the exit code once the agent ends. */
  readonly exited: Promise<number>;
  /** Ends the agent (SIGKILL), its model server and its home. */
  kill(): Promise<void>;
}

/** A fresh home directory for one agent, and the environment every agent gets in it. */
export function agentHome(prefix: string): { home: string; env: Record<string, string> } {
  const home = mkdtempSync(join(tmpdir(), `loopback-${prefix}-`));
  // No user's settings, caches or credentials leak in: only the PATH and a locale survive.
  return { home, env: { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8", TERM: "dumb", NO_COLOR: "1", TMPDIR: tmpdir() } };
}

/**
 * Runs a configuration command of the agent (`claude mcp add …`) and fails loudly when it does. Never
 * synchronously: the model servers of agents running beside it answer from this process's event loop.
 */
export async function configure(cmd: string[], env: Record<string, string>, cwd: string): Promise<string> {
  const proc = Bun.spawn(cmd, { env, cwd, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${cmd.join(" ")} failed (${code}):\n${stdout}${stderr}`);
  return stdout + stderr;
}

/** Starts the agent's run and ties its lifetime to the handle. */
export function runAgent(cmd: string[], opts: { env: Record<string, string>; cwd: string; home: string; model: ModelServer }): AgentRun {
  let out = "";
  const proc = Bun.spawn(cmd, { env: opts.env, cwd: opts.cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const pump = async (s: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of s) out += decoder.decode(chunk, { stream: true });
  };
  void pump(proc.stdout as ReadableStream<Uint8Array>);
  void pump(proc.stderr as ReadableStream<Uint8Array>);
  return {
    proc,
    results: opts.model.results,
    model: opts.model,
    output: () => out,
    exited: proc.exited,
    async kill() {
      proc.kill("SIGKILL");
      await proc.exited;
      opts.model.stop();
      rmSync(opts.home, { recursive: true, force: true });
    },
  };
}
