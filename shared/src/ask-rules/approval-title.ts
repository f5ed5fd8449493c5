import type { ApprovalPrompt } from "../generated/types.ts";

/** How much of a command an approval's title shows. */
const COMMAND_SHOWN_CHARS = 120;

/**
 * What an approval is for, in a few plain words: the command's first line, the file, the URL's host,
 * or the tool. One rule for every place that names it (a list row, the open ask, a push), so the
 * person reads the same words wherever it reaches them. Plain text: a command or a path is not markdown.
 */
export function approvalTitle(prompt: ApprovalPrompt): string {
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

/** Characters that inline markdown would read as markup, escaped so plain text shows as it is typed. */
export const escapeInlineMarkdown = (text: string) => text.replace(/[\\`*_[\]<>~|#!]/g, (c) => `\\${c}`);
