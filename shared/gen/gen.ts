// `bun run gen`: emits the contract, freezes any new revision into revisions/, and regenerates the
// shapes in shared/src/generated/ from the newest revision.
// `bun run gen --check`: changes nothing; exits 1 when a frozen revision or a generated file would change.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { TOOL_SHAPES } from "../src/tool-catalog.ts";
import { emitRevision, emitToolSchemas, emitTypes, emitValibot, type Components } from "./emit.ts";

export const ROOT = resolve(import.meta.dir, "../..");
const REVISIONS_DIR = join(ROOT, "revisions");
const GENERATED_DIR = join(ROOT, "shared/src/generated");

/** Compiles `specDir`/main.tsp and returns each emitted revision's document text, by revision. */
export function emitContract(specDir = join(ROOT, "spec")): Map<string, string> {
  const out = mkdtempSync(join(tmpdir(), "loopback-tsp-"));
  try {
    // TypeSpec 1.17 needs Node >= 22; under Bun (`--bun`) it runs on any machine that has our Bun.
    const tsp = join(ROOT, "node_modules/@typespec/compiler/cmd/tsp.js");
    const run = Bun.spawnSync(
      [process.execPath, "--bun", tsp, "compile", join(specDir, "main.tsp"), "--config", join(specDir, "tspconfig.yaml"), "--output-dir", out],
      { cwd: ROOT, stdout: "pipe", stderr: "pipe" },
    );
    if (run.exitCode !== 0) {
      throw new Error(`tsp compile failed:\n${run.stdout.toString()}${run.stderr.toString()}`);
    }
    const docs = new Map<string, string>();
    for (const file of readdirSync(out)) {
      const m = /^openapi\.(\d+)\.json$/.exec(file);
      if (m) docs.set(m[1], readFileSync(join(out, file), "utf8"));
    }
    return new Map([...docs].sort(([a], [b]) => Number(a) - Number(b)));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** Every file gen owns, with the text it should hold. */
export function expectedFiles(docs: Map<string, string>): Map<string, string> {
  const files = new Map<string, string>();
  for (const [rev, text] of docs) files.set(join(REVISIONS_DIR, `openapi.${rev}.json`), text);
  const newest = JSON.parse([...docs.values()].at(-1)!);
  const components: Components = newest.components.schemas;
  const toolShapes = Object.values(TOOL_SHAPES).flatMap((t) => [t.input, t.output]);
  files.set(join(GENERATED_DIR, "types.ts"), emitTypes(components));
  files.set(join(GENERATED_DIR, "schemas.ts"), emitValibot(components));
  files.set(join(GENERATED_DIR, "tool-schemas.ts"), emitToolSchemas(components, toolShapes));
  files.set(join(GENERATED_DIR, "revision.ts"), emitRevision([...docs.keys()]));
  return files;
}

/** What would change: frozen revisions that differ (never allowed), and generated files that drifted. */
export function drift(files: Map<string, string>) {
  const frozenChanged: string[] = [];
  const stale: string[] = [];
  for (const [path, text] of files) {
    const current = existsSync(path) ? readFileSync(path, "utf8") : undefined;
    if (current === text) continue;
    if (path.startsWith(REVISIONS_DIR) && current !== undefined) frozenChanged.push(path);
    else stale.push(path);
  }
  return { frozenChanged, stale };
}

if (import.meta.main) {
  const check = process.argv.includes("--check");
  const files = expectedFiles(emitContract());
  const { frozenChanged, stale } = drift(files);
  const rel = (p: string) => p.slice(ROOT.length + 1);
  if (frozenChanged.length) {
    console.error(
      `A shipped revision would change: ${frozenChanged.map(rel).join(", ")}.\n` +
        `Never edit a shipped revision: declare a new one in spec/versions.tsp and mark what changed ` +
        `with @added/@removed/... (docs/design/versioned-messages.md).`,
    );
    process.exit(1);
  }
  if (check) {
    if (stale.length) {
      console.error(`Out of date, run \`bun run gen\`: ${stale.map(rel).join(", ")}`);
      process.exit(1);
    }
    console.log("contract, revisions and generated shapes agree");
  } else {
    mkdirSync(GENERATED_DIR, { recursive: true });
    for (const path of stale) writeFileSync(path, files.get(path)!);
    console.log(stale.length ? `wrote ${stale.map(rel).join(", ")}` : "nothing to change");
  }
}
