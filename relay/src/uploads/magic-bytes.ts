// Whether bytes really are an image of the declared type, by their signature. An SVG or an HTML page
// sent as image/png is refused: the inbox must never be handed markup it might render.
import type { ImageType } from "@loopback/shared/generated/types";

const SIGNATURES: Record<ImageType, (b: Uint8Array) => boolean> = {
  "image/png": (b) => starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  "image/jpeg": (b) => starts(b, [0xff, 0xd8, 0xff]),
  "image/gif": (b) => starts(b, [0x47, 0x49, 0x46, 0x38]) && (b[4] === 0x37 || b[4] === 0x39) && b[5] === 0x61,
  "image/webp": (b) => starts(b, [0x52, 0x49, 0x46, 0x46]) && starts(b.subarray(8), [0x57, 0x45, 0x42, 0x50]),
};

/** Enough leading bytes to tell every supported format apart. */
export const SIGNATURE_BYTES = 12;

function starts(b: Uint8Array, sig: number[]): boolean {
  return b.length >= sig.length && sig.every((x, i) => b[i] === x);
}

export const isImageOfType = (type: ImageType, bytes: Uint8Array) => SIGNATURES[type](bytes);
