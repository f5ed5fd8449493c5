import { getContext, setContext, type Snippet } from "svelte";

/**
 * The open ask's dock: the strip at the bottom of the ask that stays on screen however far the
 * person has scrolled. The reply form fills it with its actions, and a reply held for its undo
 * window shows there, so the verdict and its Undo are always in one fixed place.
 */
export class Dock {
  content = $state<Snippet | null>(null);

  /** Shows `snippet` in the dock until the returned function is called. */
  fill(snippet: Snippet): () => void {
    this.content = snippet;
    return () => {
      if (this.content === snippet) this.content = null;
    };
  }
}

const KEY = Symbol("loopback.dock");
export const setDock = (dock: Dock) => setContext(KEY, dock);
export const getDock = () => getContext<Dock | undefined>(KEY);
