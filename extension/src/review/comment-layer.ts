// Comments shown inside a diff diff2html drew: each mounted in a row of its own beneath its line,
// kept in step with the comments as they come and go, and placed again when the diff is redrawn.
import { mount, unmount } from "svelte";
import CommentBox from "./CommentBox.svelte";
import { facingRow, findRow, insertCommentRow } from "./diff-rows";
import type { ShownComment } from "./line-comments.svelte";

interface Placed {
  nodes: Element[];
  app: Record<string, unknown>;
  resize?: ResizeObserver;
}

const keyOf = (c: ShownComment, i: number) => (c.kind === "draft" ? c.draft.id : `earlier-${i}-${c.anchor.side}-${c.anchor.line}`);

export class CommentLayer {
  #placed = new Map<string, Placed>();

  constructor(private root: HTMLElement) {}

  sync(comments: ShownComment[], onremove?: (c: ShownComment) => void): void {
    const wanted = new Map(comments.map((c, i) => [keyOf(c, i), c]));
    for (const [key, placed] of this.#placed) {
      // A redrawn diff took the rows with it; those comments are placed again below.
      if (!wanted.has(key) || !placed.nodes[0]!.isConnected) this.#drop(key);
    }
    for (const [key, comment] of wanted) {
      if (this.#placed.has(key)) continue;
      this.#placed.set(key, this.#place(comment, onremove));
    }
  }

  #place(comment: ShownComment, onremove?: (c: ShownComment) => void): Placed {
    const { side, line } = comment.anchor;
    const row = side && line !== undefined ? findRow(this.root, side, line) : null;
    const props = { comment, onremove: onremove && (() => onremove(comment)) };
    if (!row) {
      // Not drawn (it was folded away, or lies outside what the diff shows): above the diff, never lost.
      const host = document.createElement("div");
      host.className = "lb-comment-aside";
      this.root.prepend(host);
      return { nodes: [host], app: mount(CommentBox, { target: host, props }) };
    }
    const { row: own, cell } = insertCommentRow(row);
    const placed: Placed = { nodes: [own], app: mount(CommentBox, { target: cell, props }) };
    const facing = facingRow(row);
    if (facing) {
      const { row: spacer } = insertCommentRow(facing);
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
