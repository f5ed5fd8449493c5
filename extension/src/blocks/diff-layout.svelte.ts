import type { DiffLayout } from "./diff";

const KEY = "loopback.diffLayout";

/** The person's unified/split choice, remembered for every diff. A UI preference, so page storage is fine. */
class DiffLayoutPreference {
  value = $state<DiffLayout>(initial());

  set(layout: DiffLayout) {
    this.value = layout;
    try {
      localStorage.setItem(KEY, layout);
    } catch {
      // Storage can be unavailable; the choice then lasts for this page.
    }
  }
}

function initial(): DiffLayout {
  try {
    const saved = localStorage.getItem(KEY);
    if (saved === "line-by-line" || saved === "side-by-side") return saved;
  } catch {
    // As above.
  }
  return typeof window !== "undefined" && window.innerWidth >= 900 ? "side-by-side" : "line-by-line";
}

export const diffLayout = new DiffLayoutPreference();
