// What the person can see without scrolling, asserted by the boxes the browser laid out.
import type { Locator } from "playwright-core";

/** Whether the whole of the element's box is inside the viewport (and not hidden). */
export function inViewport(target: Locator): Promise<boolean> {
  return target.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
  });
}
