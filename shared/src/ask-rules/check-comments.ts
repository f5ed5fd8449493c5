import type { Block, ReviewComment } from "../generated/types.ts";
import { problem, type LoopbackProblem } from "../problems.ts";
import { hasWords } from "./has-words.ts";
import { diffLines, type DiffFileLines } from "./diff-lines.ts";

/** The lines of a code block, as the inbox numbers them. */
export const codeLineCount = (code: string) => code.split("\n").length;

/** Why one of these comments cannot stand on this review's content, or null. */
export function checkComments(content: Block[], comments: ReviewComment[] | undefined): LoopbackProblem | null {
  // Each diff is parsed once, however many comments it has.
  const parsed = new Map<number, DiffFileLines[]>();
  for (const [i, comment] of (comments ?? []).entries()) {
    const at = `Comment ${i + 1}`;
    const block = content[comment.block];
    if (!block) return problem("comment.unknown_block", `${at} names block ${comment.block}; the review has ${content.length} (counting from 0).`);
    if (!hasWords(comment.body)) return problem("reply.empty", `${at} has no words.`);
    if (block.type === "diff") {
      if (comment.file === undefined || comment.side === undefined || comment.line === undefined) {
        return problem("comment.misplaced", `${at} is on a diff: name its \`file\`, \`side\` and \`line\`.`);
      }
      let files = parsed.get(comment.block);
      if (!files) parsed.set(comment.block, (files = diffLines(block.diff, block.filename)));
      const file = files.find((f) => f.path === comment.file);
      if (!file) return problem("comment.unknown_file", `${at}: the diff has no file "${comment.file}"; it has ${files.map((f) => `"${f.path}"`).join(", ")}.`);
      if (!file[comment.side].has(comment.line)) {
        return problem("comment.unknown_line", `${at}: ${comment.file} shows no ${comment.side} line ${comment.line}.`);
      }
    } else if (block.type === "code") {
      if (comment.file !== undefined || comment.side !== undefined) return problem("comment.misplaced", `${at} is on a code block: it takes a \`line\` only.`);
      if (comment.line === undefined) return problem("comment.misplaced", `${at} is on a code block: name its \`line\`.`);
      const count = codeLineCount(block.code);
      if (comment.line > count) return problem("comment.unknown_line", `${at}: the code block has ${count} lines, not ${comment.line}.`);
    } else if (comment.file !== undefined || comment.side !== undefined || comment.line !== undefined) {
      return problem("comment.misplaced", `${at} is on a ${block.type} block, which is commented on as a whole: no \`file\`, \`side\` or \`line\`.`);
    }
  }
  return null;
}
