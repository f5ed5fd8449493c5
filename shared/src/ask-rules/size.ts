import { problem, type LoopbackProblem } from "../problems.ts";

export const MAX_BODY_BYTES = 256 * 1024;

const utf8 = new TextEncoder();

/** Refuses anything an agent sends whose JSON is larger than 256 KiB, counted in UTF-8 bytes. */
export function checkSize(value: unknown): LoopbackProblem | null {
  const bytes = utf8.encode(JSON.stringify(value) ?? "").byteLength;
  return bytes > MAX_BODY_BYTES ? problem("input.too_large", `This is ${Math.ceil(bytes / 1024)} KiB.`) : null;
}

/** Line comments a reply may carry, and the characters of each, as the contract bounds them. */
const MAX_COMMENTS = 100;
const MAX_COMMENT_CHARS = 20_000;
/**
 * The largest reply body the contract allows: 256 KiB for everything but its line comments, and
 * room for the most comments it takes (each of 20,000 characters of up to 4 UTF-8 bytes, and
 * what names its line).
 */
export const MAX_REPLY_BYTES = MAX_BODY_BYTES + MAX_COMMENTS * (MAX_COMMENT_CHARS * 4 + 1024);

/** Refuses a reply whose JSON, line comments aside, is larger than 256 KiB: the comments have the contract's own bounds. */
export function checkReplySize(reply: object): LoopbackProblem | null {
  const { comments: _, ...rest } = reply as { comments?: unknown };
  return checkSize(rest);
}
