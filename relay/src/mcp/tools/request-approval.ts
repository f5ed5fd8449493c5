import type { Allowed, ApprovalAsk, ApprovalInput, Denied } from "@loopback/shared/generated/types";
import { permissionDecision } from "@loopback/shared/ask-rules/index";
import { problem } from "@loopback/shared/problems";
import type { BlockingTool } from "../tool.ts";

/**
 * The permission prompt Claude Code hands to a program: `claude -p --permission-prompt-tool
 * mcp__loopback__request_approval`, and `loopback approve-hook` for its interactive prompts. It waits
 * without a budget (a `pending` is not a decision Claude Code can read; its own idle timeout is reset
 * by progress) and answers in the shape Claude Code reads.
 */
export const requestApproval: BlockingTool = {
  kind: "blocking",
  name: "request_approval",
  title: "Ask the person's permission for one of your tools",
  description: [
    "Your client's permission prompt: it calls this with `tool_name`, `input` and `tool_use_id` when one of your tools needs the person's permission, and runs the tool only if they allow it. It waits for the person, however long they take, and returns Claude Code's decision: `{behavior: \"allow\", updatedInput}` (run the tool with `updatedInput`, which the person may have edited) or `{behavior: \"deny\", message}`.",
    "Do not call it yourself to ask a question or for approval of your work: use `ask_question` or `request_review`.",
  ].join("\n\n"),
  unbudgeted: true,
  start: ({ asks, caller, client, call }, args) => asks.open(caller, { kind: "approval", input: args as ApprovalInput }, client, call),
  present: async (result, askOf) => {
    if (!result.reply) throw problem("approval.unanswered");
    const ask = (await askOf()) as ApprovalAsk;
    return permissionDecision(ask, result.reply as Allowed | Denied);
  },
};
