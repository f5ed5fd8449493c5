import type { ApprovalPrompt } from "@loopback/shared/generated/types";

/** How much of a command a title shows. */
const COMMAND_SHOWN_CHARS = 120;

/**
 * What an approval is for, in a few plain words: the command's first line, the file, the URL's host,
 * or the tool. Plain text: a command or a path is not markdown.
 */
export function approvalFor(prompt: ApprovalPrompt): string {
  const touches = prompt.touches;
  switch (touches.type) {
    case "command": {
      const line = touches.command.split("\n").find((l) => l.trim())?.trim() ?? "";
      if (!line) return `Run ${prompt.tool}`;
      return `Run ${line.length > COMMAND_SHOWN_CHARS ? `${line.slice(0, COMMAND_SHOWN_CHARS)}…` : line}`;
    }
    case "edit":
      return `Edit ${touches.file}`;
    case "write":
      return `Write ${touches.file}`;
    case "fetch":
      return `Fetch from ${hostOf(touches.url)}`;
    default:
      return `Use ${prompt.tool}`;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

/** The input field the person may edit before allowing, for the tools whose input is one text: a command, a file's content. */
export function editableField(prompt: ApprovalPrompt): "command" | "content" | null {
  if (prompt.touches.type === "command" && typeof prompt.input.command === "string") return "command";
  if (prompt.touches.type === "write" && typeof prompt.input.content === "string") return "content";
  return null;
}

/** Characters that inline markdown would read as markup, escaped so a command shows as it is typed. */
export const escapeInlineMarkdown = (text: string) => text.replace(/[\\`*_[\]<>~|#!]/g, (c) => `\\${c}`);
