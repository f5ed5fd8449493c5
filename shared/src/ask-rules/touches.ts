import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import type { Touch } from "../generated/types.ts";

type Input = Record<string, unknown>;

const text = (value: unknown): string | undefined => (typeof value === "string" && value.length > 0 ? value : undefined);

/**
 * What one use of an agent's tool touches, read from the tool's name and input as Claude Code's own
 * tools take them: a command and where it runs, an edit as the diff it makes, a file written whole,
 * an address fetched. Any other tool is shown by its input.
 */
export function readTouches(tool: string, input: Input, cwd?: string): Touch {
  const file = text(input.file_path) ?? text(input.notebook_path);
  switch (tool) {
    case "Bash": {
      const command = text(input.command);
      if (command) return { type: "command", command, ...(cwd && { cwd }), ...(text(input.description) && { description: text(input.description) }) };
      break;
    }
    case "Edit":
    case "MultiEdit": {
      const edits = tool === "Edit" ? [input] : Array.isArray(input.edits) ? (input.edits as Input[]) : [];
      const diff = file && editDiff(file, edits);
      if (diff) return { type: "edit", file, diff };
      break;
    }
    case "Write":
      if (file && typeof input.content === "string") return { type: "write", file, content: input.content };
      break;
    case "WebFetch": {
      const url = text(input.url);
      if (url) return { type: "fetch", url };
      break;
    }
  }
  return { type: "other" };
}

/**
 * The edits as a unified diff of the lines they change. Without the file, its lines are numbered
 * from the start of each edit; a caller that has the file (the hook) sends the diff against it.
 */
function editDiff(file: string, edits: Input[]): string | undefined {
  const patches = edits.map((edit) => {
    if (typeof edit.old_string !== "string" || typeof edit.new_string !== "string") return undefined;
    return createTwoFilesPatch(`a/${file}`, `b/${file}`, lines(edit.old_string), lines(edit.new_string), undefined, undefined, { context: 3, headerOptions: FILE_HEADERS_ONLY });
  });
  if (!patches.length || patches.some((p) => p === undefined || !p.includes("@@"))) return undefined;
  return patches.join("");
}

/** Text as whole lines, so that an edit within a line reads as that line changed, not as a missing newline. */
const lines = (s: string) => (s.endsWith("\n") || s === "" ? s : `${s}\n`);
