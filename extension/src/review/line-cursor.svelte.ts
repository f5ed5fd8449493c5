/**
 * The keyboard's place among a code or diff block's lines: ↑ ↓ move it, `c` comments on the line it
 * is on (the first line before it has moved), and a click puts it on the line clicked.
 */
export class LineCursor<L> {
  at = $state<L | null>(null);

  constructor(
    private same: (a: L, b: L) => boolean,
    private comment: (line: L) => void,
  ) {}

  /** A line picked by click or tap: the cursor goes there, and a comment opens on it. */
  pick = (line: L): void => {
    this.at = line;
    this.comment(line);
  };

  /** A key pressed in a listing of `lines`, in order; a place in another listing starts over here. */
  onkeydown = (event: KeyboardEvent, lines: L[]): void => {
    if (event.ctrlKey || event.metaKey || event.altKey || !lines.length) return;
    const at = this.at;
    const index = at === null ? -1 : lines.findIndex((line) => this.same(line, at));
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const step = event.key === "ArrowDown" ? 1 : -1;
      this.at = lines[index === -1 ? 0 : Math.max(0, Math.min(lines.length - 1, index + step))]!;
      event.preventDefault();
    } else if (event.key === "c") {
      this.pick(index === -1 ? lines[0]! : lines[index]!);
      event.preventDefault();
    }
  };

  /** What a renderer's listing takes to be driven by this cursor: its name for the keys, and the keys. */
  readonly keys = { label: (name: string) => `${name}: ↑ ↓ pick a line, c comments on it`, onkeydown: this.onkeydown };
}
