import type { Block, ReviewComment } from "../generated/types.ts";

/**
 * Where a comment is, in words a person or a model reads without the review at hand: "src/a.ts, new
 * line 12", "q.sql, line 3", "block 2 (markdown)". Blocks count from 1 here, as people count.
 */
export function anchorLabel(content: Block[], comment: ReviewComment): string {
  const block = content[comment.block];
  const nth = `block ${comment.block + 1}`;
  if (comment.file !== undefined && comment.line !== undefined) {
    return `${comment.file}, ${comment.side ?? "new"} line ${comment.line} (${nth})`;
  }
  if (comment.line !== undefined) {
    const name = block?.type === "code" && block.filename ? block.filename : nth;
    return name === nth ? `${nth}, line ${comment.line}` : `${name}, line ${comment.line} (${nth})`;
  }
  return `${nth}${block ? ` (${block.type})` : ""}`;
}

/**
 * Comments as plain text under their anchors, for a reader that has only words: a client of an
 * older revision reads them folded into `feedback` or `note`.
 */
export function foldComments(content: Block[], words: string | undefined, comments: ReviewComment[]): string {
  const listed = comments.map((c) => `- ${anchorLabel(content, c)}: ${c.body.trim().replaceAll("\n", "\n  ")}`);
  const head = words?.trim() ? `${words.trim()}\n\n` : "";
  return `${head}Comments on the review:\n${listed.join("\n")}`;
}
