// Draws the icons in public/icon/ from one SVG, with the Chromium the browser tests use.
// Run `bun scripts/make-icons.ts` after changing the drawing; the PNGs are committed.
import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";

const mark = (scale: number) => `
  <g transform="translate(64 64) scale(${scale}) translate(-64 -64)">
    <path d="M 91.2 45.5 A 33 33 0 1 0 97 68" fill="none" stroke="#fff" stroke-width="13" stroke-linecap="round"/>
    <path d="M 100.5 28 L 98.5 52 L 75 47.5" fill="none" stroke="#fff" stroke-width="13" stroke-linecap="round" stroke-linejoin="round"/>
    <circle cx="64" cy="64" r="9.5" fill="#fff"/>
  </g>`;

const svg = (maskable: boolean) => `
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 128 128" width="100%" height="100%">
  <defs>
    <linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="#6a83f5"/><stop offset="1" stop-color="#2f44c0"/>
    </linearGradient>
  </defs>
  ${maskable ? `<rect width="128" height="128" fill="url(#g)"/>` : `<rect x="4" y="4" width="120" height="120" rx="30" fill="url(#g)"/>`}
  ${mark(maskable ? 0.72 : 0.92)}
</svg>`;

const out = new URL("../public/icon/", import.meta.url).pathname;
mkdirSync(out, { recursive: true });
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const page = await browser.newPage();
for (const [name, size, maskable] of [
  ["16", 16, false], ["32", 32, false], ["48", 48, false], ["128", 128, false],
  ["192", 192, false], ["512", 512, false], ["maskable-512", 512, true],
] as const) {
  await page.setViewportSize({ width: size, height: size });
  await page.setContent(`<html><body style="margin:0;background:transparent">${svg(maskable)}</body></html>`);
  await page.screenshot({ path: `${out}${name}.png`, omitBackground: true });
}
await browser.close();
console.log(`icons written to ${out}`);
