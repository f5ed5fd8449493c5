import type { ApprovalPrompt } from "@loopback/shared/generated/types";

/** The input field the person may edit before allowing, for the tools whose input is one text: a command, a file's content. */
export function editableField(prompt: ApprovalPrompt): "command" | "content" | null {
  if (prompt.touches.type === "command" && typeof prompt.input.command === "string") return "command";
  if (prompt.touches.type === "write" && typeof prompt.input.content === "string") return "content";
  return null;
}
