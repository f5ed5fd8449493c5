// What a layer shows beneath lines of a diff diff2html drew: each line's snippet mounted in a row of
// its own beneath it (in split view, with an empty row of its height facing it), kept in step with
// the lines as they come and go, and placed again when the diff is redrawn.
import { mount, unmount, type Snippet } from "svelte";
import type { DiffLine } from "./diff";
import { BELOW_ASIDE, facingRow, findRow, insertBelowRow } from "./diff-rows";
import SnippetHost from "./SnippetHost.svelte";

interface Placed {
  nodes: Element[];
  app: Record<string, unknown>;
  resize?: ResizeObserver;
}

const keyOf = (at: DiffLine) => `${at.side}:${at.line}`;

export class BelowLines {
  #placed = new Map<string, Placed>();
  #snippet: Snippet<[DiffLine]> | null = null;

  constructor(
    private root: HTMLElement,
    /** The contexts of the component that drew the diff, for the snippets drawn inside it. */
    private context: Map<unknown, unknown>,
  ) {}

  /** Shows `snippet` beneath each of `lines`, and nothing beneath the others. */
  sync(lines: readonly DiffLine[], snippet: Snippet<[DiffLine]> | undefined): void {
    if (snippet !== this.#snippet) this.clear();
    this.#snippet = snippet ?? null;
    const wanted = new Map(snippet ? lines.map((at) => [keyOf(at), at]) : []);
    for (const [key, placed] of this.#placed) {
      // A redrawn diff took the rows with it; those lines are placed again below.
      if (!wanted.has(key) || !placed.nodes[0]!.isConnected) this.#drop(key);
    }
    for (const [key, at] of wanted) {
      if (!this.#placed.has(key)) this.#placed.set(key, this.#place(at, snippet!));
    }
  }

  #place(at: DiffLine, snippet: Snippet<[DiffLine]>): Placed {
    const row = findRow(this.root, at.side, at.line);
    const show = (target: Element) => mount(SnippetHost, { target, props: { snippet: snippet as Snippet<[unknown]>, arg: at }, context: this.context });
    if (!row) {
      // Not drawn (it lies outside what the diff shows): above the diff, never lost.
      const host = document.createElement("div");
      host.className = BELOW_ASIDE;
      this.root.prepend(host);
      return { nodes: [host], app: show(host) };
    }
    const { row: own, cell } = insertBelowRow(row);
    const placed: Placed = { nodes: [own], app: show(cell) };
    const facing = facingRow(row);
    if (facing) {
      const { row: spacer } = insertBelowRow(facing);
      placed.nodes.push(spacer);
      placed.resize = new ResizeObserver(() => (spacer.style.height = `${own.getBoundingClientRect().height}px`));
      placed.resize.observe(own);
    }
    return placed;
  }

  #drop(key: string): void {
    const placed = this.#placed.get(key)!;
    this.#placed.delete(key);
    placed.resize?.disconnect();
    void unmount(placed.app);
    for (const node of placed.nodes) node.remove();
  }

  clear(): void {
    for (const key of [...this.#placed.keys()]) this.#drop(key);
  }
}
