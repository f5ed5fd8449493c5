// What each command and a relay's start load. Loading modules is most of what a command or a start costs
// (the server, the MCP SDK with its schema validators, web push, the metrics take ~0.3 s of processor
// together), so the CLI imports a command's module only when that command runs, the store opener only the
// driver the configuration names, and a relay no library part it does not use to start. Read from the
// import graph, the way Bun reads it (type-only imports are not loaded).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, relative } from "node:path";

const src = import.meta.dir;
const transpiler = new Bun.Transpiler({ loader: "ts" });

/** The imports of a file (without its `#!` line, which the transpiler does not take). */
const importsIn = (path: string) => transpiler.scanImports(readFileSync(`${src}/${path}`, "utf8").replace(/^#!.*/, ""));

/** What loading `from` (a path from relay/src) loads: relay files as paths from relay/src, packages by the name imported. */
function reached(from: string, { dynamic }: { dynamic: boolean }): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (path: string) => {
    if (files.has(path)) return;
    files.add(path);
    if (!path.endsWith(".ts")) return;
    for (const { path: specifier, kind } of importsIn(path)) {
      if (kind === "dynamic-import" && !dynamic) continue;
      if (specifier.startsWith("node:") || specifier.startsWith("bun:")) continue;
      if (!specifier.startsWith(".")) {
        packages.add(specifier);
        continue;
      }
      const target = relative(src, Bun.resolveSync(specifier, dirname(`${src}/${path}`))).split("\\").join("/");
      if (!target.startsWith("..")) visit(target);
    }
  };
  visit(from);
  return { files, packages };
}

/** What only a relay that serves needs: its HTTP and MCP endpoints, web push, the metrics. */
const SERVER_FILES = ["server.ts", "relay.ts", "http/", "events/", "mcp/", "push/", "metrics/"];
const SERVER_PACKAGES = ["@modelcontextprotocol/sdk/server", "web-push", "prom-client"];

function serverParts({ files, packages }: { files: Set<string>; packages: Set<string> }): string[] {
  return [
    ...[...files].filter((file) => SERVER_FILES.some((part) => (part.endsWith("/") ? file.startsWith(part) : file === part))),
    ...[...packages].filter((name) => SERVER_PACKAGES.some((part) => name === part || name.startsWith(`${part}/`) || name.startsWith(`${part}.`))),
  ].sort();
}

/** The modules cli.ts imports when a command runs. */
const commandModules = importsIn("cli.ts")
  .filter(({ kind }) => kind === "dynamic-import")
  .map(({ path }) => relative(src, Bun.resolveSync(path, src)).split("\\").join("/"));

describe("what each command loads", () => {
  test("the CLI itself (every command, --help, --version) loads no part of the server and no store", () => {
    const everyCommand = reached("cli.ts", { dynamic: false });
    expect(serverParts(everyCommand)).toEqual([]);
    expect([...everyCommand.files].filter((file) => file.startsWith("storage/"))).toEqual([]);
    expect([...everyCommand.packages].filter((name) => ["postgres", "drizzle-orm", "zod", "@modelcontextprotocol/sdk"].some((heavy) => name.startsWith(heavy)))).toEqual([]);
  });

  test("each command is a module of its own, loaded when it runs", () => {
    expect(commandModules).toContain("cli/tokens.ts");
    expect(commandModules).toContain("cli/serve.ts");
    expect(commandModules).toContain("cli/approve-hook.ts");
  });

  test("only `serve` loads the server", () => {
    expect(serverParts(reached("cli/serve.ts", { dynamic: true }))).toContain("server.ts");
    for (const module of commandModules.filter((path) => path !== "cli/serve.ts")) {
      expect({ module, loads: serverParts(reached(module, { dynamic: true })) }).toEqual({ module, loads: [] });
    }
  });

  test("`token create` loads the store and the gate, not the approval hook's MCP client", () => {
    const tokens = reached("cli/tokens.ts", { dynamic: true });
    expect(tokens.files).toContain("auth/gate.ts");
    expect(tokens.files).toContain("storage/sqlite/store.ts");
    expect([...tokens.packages].filter((name) => name.startsWith("@modelcontextprotocol/"))).toEqual([]);
  });

  test("opening a store loads only the driver the configuration names", () => {
    const opener = reached("storage/open-store.ts", { dynamic: false });
    expect([...opener.files].filter((file) => file.startsWith("storage/sqlite/") || file.startsWith("storage/postgres/"))).toEqual([]);
    expect(reached("storage/sqlite/store.ts", { dynamic: false }).packages).not.toContain("postgres");
    expect(reached("storage/postgres/store.ts", { dynamic: false }).files).not.toContain("storage/sqlite/store.ts");
    expect(reached("storage/open-store.ts", { dynamic: true }).files).toContain("storage/postgres/store.ts");
  });
});

describe("what a relay's start loads", () => {
  const start = reached("cli/serve.ts", { dynamic: false });

  test("web push only to make its keys on a first start, or at its first push", () => {
    expect(start.files).toContain("push/push-sender.ts");
    expect([...start.packages].filter((name) => name.startsWith("web-push"))).toEqual([]);
  });

  test("of prom-client, the metric kinds it uses, not the index with its default metrics", () => {
    expect(start.files).toContain("metrics/metrics.ts");
    expect([...start.packages].filter((name) => name.startsWith("prom-client")).sort()).toEqual(["prom-client/lib/counter", "prom-client/lib/gauge", "prom-client/lib/histogram", "prom-client/lib/registry"]);
  });
});
