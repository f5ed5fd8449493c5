import type { Allowed, ApprovalAsk, Denied, PermissionDecision, PermissionRule } from "../generated/types.ts";

/**
 * The person's reply on an approval as Claude Code reads it: `allow` with the input to run (the
 * person's edit, or the agent's own), and for the rest of the session a rule that allows the same
 * use again; or `deny` with the words the agent hears, and `interrupt` to stop it.
 */
export function permissionDecision(ask: ApprovalAsk, reply: Allowed | Denied): PermissionDecision {
  if (reply.outcome === "denied") {
    const message = reply.message?.trim() || (reply.stop ? "The person denied this and stopped you." : "The person denied this.");
    return { behavior: "deny", message, ...(reply.stop && { interrupt: true }) };
  }
  const updatedInput = reply.input ?? ask.prompt.input;
  if (reply.scope !== "session") return { behavior: "allow", updatedInput };
  const rule = sessionRule(ask.prompt.tool, updatedInput);
  return { behavior: "allow", updatedInput, updatedPermissions: [{ type: "addRules", rules: [rule], behavior: "allow", destination: "session" }] };
}

/**
 * The narrowest rule, in Claude Code's permission syntax, that allows this same use again: the exact
 * command, the same file (an absolute path is written `//path`), the same host; any other tool as a
 * whole, since its rules take no content.
 */
export function sessionRule(tool: string, input: Record<string, unknown>): PermissionRule {
  const str = (key: string) => (typeof input[key] === "string" ? (input[key] as string) : undefined);
  switch (tool) {
    case "Bash": {
      const command = str("command");
      return command ? { toolName: tool, ruleContent: command } : { toolName: tool };
    }
    case "Edit":
    case "MultiEdit":
    case "Write":
    case "NotebookEdit": {
      const file = str("file_path") ?? str("notebook_path");
      return file ? { toolName: tool, ruleContent: file.startsWith("/") ? `/${file}` : file } : { toolName: tool };
    }
    case "WebFetch": {
      const host = hostOf(str("url"));
      return host ? { toolName: tool, ruleContent: `domain:${host}` } : { toolName: tool };
    }
    default:
      return { toolName: tool };
  }
}

function hostOf(url: string | undefined): string | undefined {
  return url && URL.canParse(url) ? new URL(url).hostname || undefined : undefined;
}
