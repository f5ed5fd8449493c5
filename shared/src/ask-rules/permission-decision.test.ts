import { describe, expect, test } from "bun:test";
import { anApproval } from "../testing/sample-asks.ts";
import { permissionDecision, sessionRule } from "./permission-decision.ts";

const approval = anApproval();

describe("permissionDecision", () => {
  test("allowing runs the tool with the agent's own input", () => {
    expect(permissionDecision(approval, { outcome: "allowed" })).toEqual({ behavior: "allow", updatedInput: approval.prompt.input });
  });

  test("allowing an edited input runs the person's edit", () => {
    const input = { command: "rm -rf build/cache" };
    expect(permissionDecision(approval, { outcome: "allowed", input })).toEqual({ behavior: "allow", updatedInput: input });
  });

  test("allowing for the session adds a session rule for the very same use", () => {
    expect(permissionDecision(approval, { outcome: "allowed", scope: "session" })).toEqual({
      behavior: "allow",
      updatedInput: approval.prompt.input,
      updatedPermissions: [{ type: "addRules", rules: [{ toolName: "Bash", ruleContent: "rm -rf build" }], behavior: "allow", destination: "session" }],
    });
  });

  test("a session rule covers the edited command, not the one the agent asked for", () => {
    const decision = permissionDecision(approval, { outcome: "allowed", input: { command: "rm -rf build/cache" }, scope: "session" });
    expect(decision.updatedPermissions?.[0].rules).toEqual([{ toolName: "Bash", ruleContent: "rm -rf build/cache" }]);
  });

  test("denying tells the agent the person's words, and never stops it unless asked", () => {
    expect(permissionDecision(approval, { outcome: "denied", message: "Use make clean." })).toEqual({ behavior: "deny", message: "Use make clean." });
  });

  test("denying without words still tells the agent it was the person", () => {
    expect(permissionDecision(approval, { outcome: "denied", message: "  " })).toEqual({ behavior: "deny", message: "The person denied this." });
  });

  test("denying and stopping interrupts the agent", () => {
    expect(permissionDecision(approval, { outcome: "denied", stop: true })).toMatchObject({ behavior: "deny", interrupt: true });
  });
});

describe("sessionRule", () => {
  test("a file tool's rule names the file, an absolute path as Claude Code writes one", () => {
    expect(sessionRule("Edit", { file_path: "/home/ana/src/a.ts" })).toEqual({ toolName: "Edit", ruleContent: "//home/ana/src/a.ts" });
    expect(sessionRule("Write", { file_path: "src/a.ts" })).toEqual({ toolName: "Write", ruleContent: "src/a.ts" });
  });

  test("a fetch's rule names the host", () => {
    expect(sessionRule("WebFetch", { url: "https://Docs.Example.com/x?y" })).toEqual({ toolName: "WebFetch", ruleContent: "domain:docs.example.com" });
  });

  test("any other tool is allowed as a whole", () => {
    expect(sessionRule("mcp__github__create_issue", { title: "x" })).toEqual({ toolName: "mcp__github__create_issue" });
  });
});
