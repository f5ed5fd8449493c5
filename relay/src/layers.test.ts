// The relay's layers, lowest first: a file imports only from its own layer and those below it, so the
// store never reaches into the ask domain, the domain never into a transport, and nothing but the
// wiring knows how the whole relay is put together.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const src = import.meta.dir;

/** Each layer, lowest first, by the files and folders (ending in `/`) it holds. */
const LAYERS: { name: string; holds: string[] }[] = [
  // What every part reads: time, ids, logs, settings, input checks, the older revisions' shapes.
  { name: "basics", holds: ["clock.ts", "ids.ts", "build-stamp.ts", "shipped.ts", "config.ts", "parse-shape.ts", "read-capped-body.ts", "logging/"] },
  { name: "storage", holds: ["storage/"] },
  { name: "domain", holds: ["auth/", "limits/", "asks/", "uploads/", "push/", "upkeep/"] },
  // What is sent in the shape of the revision a client reads: for the transports, over the ask domain.
  { name: "adapters", holds: ["revisions/", "http/", "events/", "mcp/", "metrics/"] },
  { name: "wiring", holds: ["relay.ts", "server.ts", "planned-restart.ts", "port-in-use.ts", "cli.ts", "cli/"] },
];

const files = (readdirSync(src, { recursive: true }) as string[])
  .map((path) => path.split("\\").join("/"))
  .filter((path) => path.endsWith(".ts") && !path.endsWith(".test.ts"))
  .sort();

/** The layer a file belongs to: the longest entry that names it or a folder above it. */
function layerOf(path: string): number {
  let best = -1;
  let length = 0;
  LAYERS.forEach((layer, index) => {
    for (const entry of layer.holds) {
      const holds = entry.endsWith("/") ? path.startsWith(entry) : path === entry;
      if (holds && entry.length > length) [best, length] = [index, entry.length];
    }
  });
  return best;
}

/** The files of relay/src that `path` imports, statically or not, as paths from relay/src. */
function importsOf(path: string): string[] {
  const text = readFileSync(join(src, path), "utf8");
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)"(\.[^"]+)"/gm)].map((match) => match[1]);
  return specifiers.map((specifier) => relative(src, join(src, dirname(path), specifier)).split("\\").join("/")).filter((target) => !target.startsWith(".."));
}

const upward = files.flatMap((path) =>
  importsOf(path)
    .filter((target) => layerOf(target) > layerOf(path))
    .map((target) => `${path} -> ${target}`),
);

describe("the relay's layers", () => {
  test("there are files to check", () => expect(files.length).toBeGreaterThan(50));

  test("every file belongs to a layer", () => expect(files.filter((path) => layerOf(path) < 0)).toEqual([]));

  test("no file imports from a layer above its own", () => expect(upward).toEqual([]));

  test("an import is read whichever way it is written", () => {
    expect(importsOf("storage/open-store.ts")).toContain("config.ts");
    expect(importsOf("cli.ts")).toContain("cli/serve.ts");
  });
});
