// What an edit or a write touches, read against the file as it is on the agent's machine: the hook
// runs there, so the person sees the edit at the file's own line numbers. The relay, which has no
// file, reads the same from the tool's input alone.
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import type { Touch } from "@loopback/shared/generated/types";

type Input = Record<string, unknown>;

export function touchesOnDisk(tool: string, input: Input, cwd: string): Touch | undefined {
  const path = typeof input.file_path === "string" ? input.file_path : undefined;
  if (!path || (tool !== "Edit" && tool !== "MultiEdit")) return undefined;
  const before = readText(isAbsolute(path) ? path : resolve(cwd, path));
  if (before === undefined) return undefined;
  const edits = tool === "Edit" ? [input] : Array.isArray(input.edits) ? (input.edits as Input[]) : [];
  let after = before;
  for (const edit of edits) {
    const { old_string: from, new_string: to, replace_all: all } = edit;
    if (typeof from !== "string" || typeof to !== "string" || !from || !after.includes(from)) return undefined;
    after = all === true ? after.split(from).join(to) : after.replace(from, () => to);
  }
  if (after === before) return undefined;
  const diff = createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after, undefined, undefined, { context: 3, headerOptions: FILE_HEADERS_ONLY });
  return { type: "edit", file: path, diff };
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
