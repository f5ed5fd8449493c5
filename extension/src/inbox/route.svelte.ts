/** The hash route both surfaces share: `#/` for the list, `#/ask/<id>` for one ask. */
export class Route {
  askId = $state<string | null>(null);

  constructor() {
    this.#read();
  }

  /** Follows the hash until the signal aborts. */
  listen(signal: AbortSignal): void {
    window.addEventListener("hashchange", () => this.#read(), { signal });
  }

  open(askId: string | null): void {
    const hash = askId ? `#/ask/${encodeURIComponent(askId)}` : "#/";
    if (location.hash !== hash) location.hash = hash;
    this.askId = askId;
  }

  #read() {
    const match = /^#\/ask\/([^/?#]+)/.exec(location.hash);
    this.askId = match ? decodeURIComponent(match[1]!) : null;
  }
}
