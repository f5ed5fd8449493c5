/** Whether a key press belongs to what the person is typing into, rather than to the inbox. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag !== "INPUT") return false;
  const type = (target as HTMLInputElement).type;
  return !["checkbox", "radio", "button", "submit", "reset"].includes(type);
}

/** Whether Enter on this element already means something (a button, a link). */
export function isActionable(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && !!target.closest("button, a, input, textarea, select, summary, [role=button]");
}

/** Each shortcut: its alternatives, each a combination of keys. */
const MAC = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);

export const SHORTCUTS: { keys: string[][]; what: string }[] = [
  { keys: [["j"], ["↓"]], what: "Next ask (open ones; closed ones in history)" },
  { keys: [["k"], ["↑"]], what: "Previous ask" },
  { keys: [["h"]], what: "Walk recently closed asks, or back to the open ones" },
  { keys: [["Enter"]], what: "Open the selected ask" },
  { keys: [["Esc"]], what: "Back to the list" },
  { keys: [["1–6"]], what: "Pick a choice" },
  { keys: [["r"]], what: "Write a reply (a briefing: on the point you are on, else its first open one; an approval: the message if you deny)" },
  { keys: [["n"], ["p"]], what: "Next or previous point of a briefing, unfolded" },
  { keys: [["x"]], what: "Mark the briefing point you are on resolved, or not (sent with your replies)" },
  { keys: [[MAC ? "⌘" : "Ctrl", "Enter"]], what: "Send an answer or replies; in a line comment, save it" },
  { keys: [["a"]], what: "Approve a review, or allow an approval (held 5 s, with Undo)" },
  { keys: [["u"]], what: "Undo a verdict or a dismissal before it is sent" },
  { keys: [["c"]], what: "Comment on the line picked with ↑ ↓ in code or a diff" },
  { keys: [["d"]], what: "Dismiss (asks first, then held 5 s with Undo); deny an approval (held 5 s with Undo)" },
  { keys: [["?"]], what: "Show these shortcuts" },
];
