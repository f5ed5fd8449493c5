// The command a planned restart starts the next process with: the same program, however the relay
// was shipped. Through the real parts, tests/mcp/planned-restarts-never-close-the-port.test.ts
// restarts the single executable `npm test` builds.
import { expect, test } from "bun:test";
import { sameCommand } from "./planned-restart.ts";

test("a single executable starts its next process by its own path, not the `bun` and embedded script its argv names", () => {
  expect(sameCommand(["bun", "/$bunfs/root/loopback", "serve", "--port", "8371"], "/usr/local/bin/loopback", "binary")).toEqual(["/usr/local/bin/loopback", "serve", "--port", "8371"]);
});

test("a clone or the package starts its next process with the same runtime, script and arguments", () => {
  expect(sameCommand(["/home/ada/.bun/bin/bun", "/opt/loopback/relay/src/cli.ts", "serve"], "/home/ada/.bun/bin/bun", "clone")).toEqual(["/home/ada/.bun/bin/bun", "/opt/loopback/relay/src/cli.ts", "serve"]);
  expect(sameCommand(["bun", "/tmp/npx/loopback-relay/dist/cli.js", "serve"], "/usr/bin/bun", "package")).toEqual(["/usr/bin/bun", "/tmp/npx/loopback-relay/dist/cli.js", "serve"]);
});
