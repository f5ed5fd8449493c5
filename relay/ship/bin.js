#!/usr/bin/env node
// The package's command: the relay runs on Bun, which this package depends on, so `npx` (Node) and
// `bunx` both start it from here. Under Node it runs Bun as a child that shares the terminal: Ctrl+C
// reaches both, and a SIGTERM sent to this process alone is passed on.
import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const relay = fileURLToPath(new URL("../loopback.js", import.meta.url));

/** Bun from the `bun` package: its postinstall puts the binary in bin/bun.exe; without it, the platform package holds it. */
function bunBinary() {
  const require = createRequire(import.meta.url);
  const placed = join(dirname(require.resolve("bun/package.json")), "bin", "bun.exe");
  if (existsSync(placed) && statSync(placed).size > 1_000_000) return placed;
  const arch = process.arch === "arm64" ? "aarch64" : process.arch;
  for (const name of [`@oven/bun-${process.platform}-${arch}`, `@oven/bun-${process.platform}-${arch}-musl`]) {
    try {
      const dir = dirname(require.resolve(`${name}/package.json`));
      const binary = join(dir, "bin", process.platform === "win32" ? "bun.exe" : "bun");
      if (existsSync(binary)) return binary;
    } catch {}
  }
  throw new Error("Bun is missing: reinstall without --ignore-scripts (the `bun` package places it when it installs).");
}

if (process.versions.bun) {
  await import(relay);
} else {
  const child = spawn(bunBinary(), [relay, ...process.argv.slice(2)], { stdio: "inherit" });
  process.on("SIGINT", () => {});
  process.on("SIGTERM", () => child.kill("SIGTERM"));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
}
