import { problem, type LoopbackProblem } from "../problems.ts";

export const MAX_BODY_BYTES = 256 * 1024;

const utf8 = new TextEncoder();

/** Refuses anything an agent sends whose JSON is larger than 256 KiB, counted in UTF-8 bytes. */
export function checkSize(value: unknown): LoopbackProblem | null {
  const bytes = utf8.encode(JSON.stringify(value) ?? "").byteLength;
  return bytes > MAX_BODY_BYTES ? problem("input.too_large", `This is ${Math.ceil(bytes / 1024)} KiB.`) : null;
}
