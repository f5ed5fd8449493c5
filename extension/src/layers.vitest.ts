// The inbox's layers, lowest first: a file imports only from its own layer and those below it, so the
// renderers never reach into commenting, commenting never into replies, and only the surfaces know
// how the whole inbox is put together.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Each layer, lowest first, by the folders it holds (from extension/). */
const LAYERS: { name: string; holds: string[] }[] = [
  { name: "relay client", holds: ["src/relay/"] },
  { name: "basics", holds: ["src/base/", "src/ui/"] },
  // Code, diffs, markdown, images: shown as they are, with hooks on their lines for a layer above.
  { name: "renderers", holds: ["src/blocks/"] },
  { name: "commenting", holds: ["src/review/"] },
  { name: "replies", holds: ["src/reply/"] },
  { name: "asks", holds: ["src/ask/", "src/approval/"] },
  { name: "inbox", holds: ["src/inbox/"] },
  { name: "surfaces", holds: ["src/panel/", "src/options/", "src/worker/", "entrypoints/", "web/", "src/testing/"] },
];

/** Upward imports that are there now, each to go: an import that leaves must leave this list too. */
const STILL_UPWARD: string[] = [];

const files = ["src", "entrypoints", "web"]
  .flatMap((dir) => (readdirSync(join(root, dir), { recursive: true }) as string[]).map((path) => `${dir}/${path.split("\\").join("/")}`))
  .filter((path) => /\.(ts|svelte)$/.test(path) && !path.endsWith(".vitest.ts"))
  .sort();

function layerOf(path: string): number {
  return LAYERS.findIndex((layer) => layer.holds.some((folder) => path.startsWith(folder)));
}

/** The files of the extension that `path` imports, statically or not, as paths from extension/. */
function importsOf(path: string): string[] {
  const text = readFileSync(join(root, path), "utf8");
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)"(\.[^"]+)"/gm)].map((match) => match[1]!);
  return specifiers
    .map((specifier) => relative(root, join(root, dirname(path), specifier)).split("\\").join("/"))
    .filter((target) => !target.startsWith(".."))
    .map((target) => [target, `${target}.ts`].find((candidate) => existsSync(join(root, candidate))) ?? target);
}

const upward = files.flatMap((path) =>
  importsOf(path)
    .filter((target) => layerOf(target) > layerOf(path))
    .map((target) => `${path} -> ${target}`),
);

describe("the inbox's layers", () => {
  test("there are files to check", () => expect(files.length).toBeGreaterThan(50));

  test("every file belongs to a layer", () => expect(files.filter((path) => layerOf(path) < 0)).toEqual([]));

  test("no file imports from a layer above its own", () => expect(upward.filter((edge) => !STILL_UPWARD.includes(edge))).toEqual([]));

  test("each upward import still listed is still there", () => expect(STILL_UPWARD.filter((edge) => !upward.includes(edge))).toEqual([]));

  test("the renderers import nothing of commenting", () => {
    expect(files.filter((path) => path.startsWith("src/blocks/")).flatMap((path) => importsOf(path).filter((target) => target.startsWith("src/review/")))).toEqual([]);
  });

  test("an import is read whichever way it is written, from code and from components", () => {
    expect(importsOf("src/review/CommentableDiff.svelte")).toContain("src/blocks/Diff.svelte");
    expect(importsOf("src/review/CommentableDiff.svelte")).toContain("src/review/line-cursor.svelte.ts");
    expect(importsOf("src/blocks/highlight.ts")).toEqual([]);
    expect(importsOf("src/reply/draft.svelte.ts")).toContain("src/review/line-comments.svelte.ts");
  });
});
