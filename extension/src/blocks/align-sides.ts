// Split, a diff's two sides are two tables: a wrapped line makes its row taller on one side only, so
// each pair of rows is given the taller one's height again whenever the width changes.

/** Keeps the rows of `box`'s two sides in line until the returned function is called. */
export function keepSidesAligned(box: HTMLElement): () => void {
  let width = -1;
  const observer = new ResizeObserver(([entry]) => {
    if (!entry || entry.contentRect.width === width) return;
    width = entry.contentRect.width;
    alignSides(box);
  });
  observer.observe(box);
  return () => observer.disconnect();
}

function alignSides(box: HTMLElement) {
  const [left, right] = [...box.querySelectorAll(".d2h-file-side-diff")].map((side) => [...side.querySelectorAll("tr")]);
  if (!left || !right || left.length !== right.length) return;
  // Cleared, then every height read, then every height written: one layout for the whole file.
  for (const row of [...left, ...right]) row.style.height = "";
  const heights = left.map((row, i) => Math.max(row.offsetHeight, right[i]!.offsetHeight));
  heights.forEach((h, i) => (left[i]!.style.height = right[i]!.style.height = `${h}px`));
}
