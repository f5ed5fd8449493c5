import type { Inbox } from "../base/inbox.svelte";
import { isOpen } from "../base/ask-order";
import type { ReplyKeys } from "../reply/reply-keys";
import { isActionable, isTyping } from "./keyboard";
import type { Route } from "./route.svelte";

/**
 * The inbox by keyboard: which ask is selected, whether j/k walk the open asks or the closed ones,
 * whether the shortcuts dialog is up, and what each key does. The app component feeds it the route
 * and the layout, and hands it the window's key presses.
 */
export class InboxKeys {
  readonly #inbox: Inbox;
  readonly #route: Route;
  readonly #keys: ReplyKeys;

  selectedId = $state<string | null>(null);
  /** Whether j/k walk the closed asks: the person went there (h, or picked a closed one). */
  inHistory = $state(false);
  /** Whether the person has moved the selection; until then it follows the top of the list. */
  chosen = $state(false);
  helpOpen = $state(false);
  /** Whether the list and the ask sit side by side. */
  wide = $state(false);

  constructor(inbox: Inbox, route: Route, keys: ReplyKeys) {
    this.#inbox = inbox;
    this.#route = route;
    this.#keys = keys;
  }

  get showList(): boolean {
    return this.wide || !this.#route.askId;
  }

  /** What j/k walk: the open asks, the person's move first; the closed ones in history, or when nothing is open. */
  get walk() {
    const inbox = this.#inbox;
    return this.inHistory || inbox.visibleOpen.length === 0 ? inbox.visibleClosed : inbox.visibleOpen;
  }

  /** The ask the route shows is the one selected, and says whether the person is in history. */
  followRoute(): void {
    const id = this.#route.askId;
    if (!id) return;
    this.selectedId = id;
    const ask = this.#inbox.entry(id);
    if (ask) this.inHistory = !isOpen(ask);
  }

  /** The asks waiting for the person the selection has already seen arrive. */
  #seenTheirs = new Set<string>();
  /** Whether the first asks have loaded: those are not news. */
  #seenAny = false;
  /** An ask that came for the person while another was open, said until they open one. */
  newArrival = $state<string | null>(null);

  /**
   * The selection stays among what j/k walk; it starts on the first ask waiting for the person,
   * and a new ask waiting for them takes it from a row that is not their move, so Enter opens what
   * needs them.
   */
  keepSelectionInWalk(): void {
    const theirs = this.#inbox.visibleOpen.filter((a) => a.status === "awaiting_human");
    const arrived = theirs.find((a) => !this.#seenTheirs.has(a.id));
    for (const a of theirs) this.#seenTheirs.add(a.id);
    if (arrived && this.#route.askId && arrived.id !== this.#route.askId && this.#seenAny) this.newArrival = arrived.id;
    this.#seenAny ||= this.#inbox.visibleOpen.length + this.#inbox.visibleClosed.length > 0;
    if (this.selectedId && this.selectedId === this.#route.askId) return;
    const selected = this.walk.find((a) => a.id === this.selectedId);
    if (arrived && selected && selected.status !== "awaiting_human" && !this.inHistory) {
      this.selectedId = arrived.id;
      return;
    }
    if (this.chosen && selected) return;
    this.selectedId = this.walk[0]?.id ?? null;
  }

  /** Whether the inbox has shown an ask yet: a wide inbox opens on its selected row once, not on an empty pane. */
  #shownAny = false;

  /**
   * Side by side, the first selected row opens at once: an empty pane beside a selected row only
   * asks for a key press. Once an ask was shown, closing it leaves the pane empty as asked.
   */
  openSelectedWhenWide(): void {
    if (this.#route.askId) this.#shownAny = true;
    if (this.#shownAny || !this.wide || !this.selectedId) return;
    this.#shownAny = true;
    this.#route.open(this.selectedId);
  }

  open(id: string): void {
    this.newArrival = null;
    this.chosen = true;
    this.selectedId = id;
    const ask = this.#inbox.entry(id);
    this.inHistory = !!ask && !isOpen(ask);
    this.#route.open(id);
  }

  /** Once the person's turn on an ask is taken, on to the next ask waiting for them. */
  moveOn(fromId: string): void {
    const next = this.#inbox.visibleOpen.find((a) => a.status === "awaiting_human" && a.id !== fromId);
    if (next) this.open(next.id);
  }

  toggleHistory(): void {
    this.chosen = true;
    this.inHistory = !this.inHistory;
    this.selectedId = this.walk[0]?.id ?? null;
    if (this.selectedId) rowOf(this.selectedId)?.scrollIntoView?.({ block: "nearest" });
  }

  move(step: number): void {
    const list = this.walk;
    if (list.length === 0) return;
    const at = list.findIndex((a) => a.id === this.selectedId);
    const next = list[Math.min(list.length - 1, Math.max(0, at === -1 ? 0 : at + step))]!;
    this.chosen = true;
    this.selectedId = next.id;
    if (this.#route.askId) this.#route.open(next.id);
    else rowOf(next.id)?.scrollIntoView?.({ block: "nearest" });
  }

  onkeydown = (event: KeyboardEvent): void => {
    if (event.defaultPrevented) return;
    const typing = isTyping(event.target);
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      if (this.#keys.current?.send) {
        event.preventDefault();
        this.#keys.current.send();
      }
      return;
    }
    if (event.key === "Escape") {
      if (this.helpOpen) this.helpOpen = false;
      else if (typing) (event.target as HTMLElement).blur();
      else if (this.#route.askId) this.#route.open(null);
      else return;
      event.preventDefault();
      return;
    }
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    if (this.#handleKey(event)) event.preventDefault();
  };

  #handleKey(event: KeyboardEvent): boolean {
    const key = event.key;
    const route = this.#route;
    if (key === "?") return (this.helpOpen = !this.helpOpen), true;
    if (this.helpOpen) return false;
    if (key === "j" || (key === "ArrowDown" && this.showList && !route.askId)) return this.move(1), true;
    if (key === "k" || (key === "ArrowUp" && this.showList && !route.askId)) return this.move(-1), true;
    if (key === "h") return this.toggleHistory(), true;
    if (key === "Enter" && !isActionable(event.target) && this.selectedId && this.selectedId !== route.askId) return this.open(this.selectedId), true;
    if (!route.askId) return false;
    const actions = this.#keys.current;
    if (/^[1-6]$/.test(key) && actions?.choose) return actions.choose(Number(key) - 1), true;
    if (key === "a" && actions?.approve) return actions.approve(), true;
    if (key === "u" && actions?.undo) return actions.undo(), true;
    if (key === "d" && actions?.dismiss) return actions.dismiss(), true;
    if (key === "r" && actions?.focusText) return actions.focusText(), true;
    if ((key === "n" || key === "p") && actions?.movePoint) return actions.movePoint(key === "n" ? 1 : -1), true;
    if (key === "x" && actions?.resolvePoint) return actions.resolvePoint(), true;
    return false;
  }
}

const rowOf = (id: string) => document.querySelector(`[data-ask-row="${CSS.escape(id)}"]`);
