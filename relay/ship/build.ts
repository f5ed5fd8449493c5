// `npm run build`'s second half: the relay shipped two ways, each carrying what a clone reads from its
// source tree — both stores' migrations and the built web inbox — beside its bundled code:
//   dist/loopback          one executable (Bun inside), files embedded (`bun build --compile --asset`)
//   dist/package/          the npm package `loopback-relay`, which `npx`/`bunx` run (Bun from npm)
// Both are stamped with when they were built (LOOPBACK_BUILD when set), never with file times.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PACKAGE_NAME, VERSION } from "../src/shipped.ts";

const ROOT = resolve(import.meta.dir, "../..");
const DIST = join(ROOT, "dist");
const WEB = join(ROOT, "extension/.output/web");
/** What the relay reads at run time, by the folder it looks in beside its code (see shipped.ts). */
const FILES: Record<string, string> = {
  migrations: join(ROOT, "relay/src/storage/sqlite/migrations"),
  "pg-migrations": join(ROOT, "relay/src/storage/postgres/pg-migrations"),
  web: WEB,
};

function bunBuild(args: string[], cwd: string): void {
  const built = Bun.spawnSync([process.execPath, "build", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (built.exitCode !== 0) throw new Error(`bun build ${args.join(" ")} failed:\n${built.stderr.toString()}${built.stdout.toString()}`);
}

function defines(shipped: "binary" | "package", builtAt: string): string[] {
  return [`--define=LOOPBACK_SHIPPED=${JSON.stringify(shipped)}`, `--define=LOOPBACK_BUILT_AT=${JSON.stringify(builtAt)}`];
}

/** Copies the run-time files into `into`, each under the folder name the relay looks for. */
function copyFiles(into: string): void {
  for (const [name, from] of Object.entries(FILES)) cpSync(from, join(into, name), { recursive: true });
}

export function ship(builtAt = process.env.LOOPBACK_BUILD || new Date().toISOString()): void {
  if (!existsSync(join(WEB, "index.html"))) throw new Error("The web inbox is not built: `npm run build` builds it first.");
  const cli = join(ROOT, "relay/src/cli.ts");

  // --asset keeps each path as given, relative to where bun build runs: a staging folder.
  const staging = join(DIST, ".staging");
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  copyFiles(staging);
  // Compiled ahead to bytecode: a start parses nothing. A relay starts on 70% of the processor time it
  // took without (45% of a start from source), and a CLI command (Claude Code runs `approve-hook`
  // before each tool) on 60%.
  bunBuild(["--compile", "--bytecode", "--format=esm", cli, "--outfile", join(DIST, "loopback"), ...defines("binary", builtAt), ...Object.keys(FILES).map((name) => `--asset=${name}`)], staging);
  rmSync(staging, { recursive: true, force: true });

  const pkg = join(DIST, "package");
  rmSync(pkg, { recursive: true, force: true });
  mkdirSync(join(pkg, "bin"), { recursive: true });
  bunBuild([cli, "--target=bun", "--outfile", join(pkg, "loopback.js"), ...defines("package", builtAt)], ROOT);
  copyFiles(pkg);
  cpSync(join(import.meta.dir, "bin.js"), join(pkg, "bin", `${PACKAGE_NAME}.js`));
  cpSync(join(import.meta.dir, "README.md"), join(pkg, "README.md"));
  cpSync(join(ROOT, "LICENSE"), join(pkg, "LICENSE"));
  // The Bun the repository runs on: the package's only dependency, which npx and bunx fetch with it.
  const bun = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).devDependencies.bun as string;
  const manifest = {
    name: PACKAGE_NAME,
    version: VERSION,
    description: "Loopback's relay: coding agents ask over MCP, their person answers from a side panel or web inbox.",
    license: "MIT",
    type: "module",
    bin: { [PACKAGE_NAME]: `bin/${PACKAGE_NAME}.js` },
    files: ["bin", "loopback.js", ...Object.keys(FILES)],
    dependencies: { bun },
    engines: { node: ">=18" },
    keywords: ["mcp", "agents", "claude-code", "codex", "inbox", "relay"],
  };
  writeFileSync(join(pkg, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
}

if (import.meta.main) {
  const started = performance.now();
  ship();
  console.log(`Shipped the relay: dist/loopback (single executable) and dist/package (${PACKAGE_NAME}) in ${Math.round(performance.now() - started)} ms`);
}
