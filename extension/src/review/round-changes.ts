// What changed between two rounds of a review: for each code and diff block, a diff of its text
// then and now, and the earlier round's comments placed on the lines they were on (the diff's old
// side), so the person can check each one was dealt with. Nothing said earlier is left out: a
// comment whose line the changes do not show is listed with its block.
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import type { Block, ReviewAsk, ReviewComment } from "@loopback/shared/generated/types";
import { anchorLabel, diffLines, withHeaders } from "@loopback/shared/ask-rules/index";
import type { ShownComment } from "./line-comments.svelte";

type Lined = Extract<Block, { type: "code" | "diff" }>;

export interface BlockChange {
  /** How the block is named: its file, or its place. */
  name: string;
  state: "changed" | "unchanged" | "new" | "gone";
  /** The unified diff from the earlier round's text to this one's; empty when unchanged. */
  patch: string;
  /** Earlier comments on lines the patch shows, anchored to its old side. */
  placed: ShownComment[];
  /** Earlier comments on this block whose lines the patch does not show. */
  aside: { label: string; body: string }[];
}

export interface RoundChanges {
  blocks: BlockChange[];
  /** Earlier comments on blocks that are neither code nor a diff, or that have no counterpart. */
  elsewhere: { label: string; body: string }[];
}

const isLined = (b: Block): b is Lined => b.type === "code" || b.type === "diff";
const textOf = (b: Lined) => (b.type === "code" ? b.code : withHeaders(b.diff, b.filename));
const nameOf = (b: Lined, index: number) =>
  (b.filename ?? (b.type === "diff" ? diffLines(b.diff).map((f) => f.path).join(", ") : "") ?? "").replace(/\s+/g, " ").trim() || `block ${index + 1}`;

/** The person's comments on a round: those of their last verdict on it. */
export function commentsOf(ask: ReviewAsk): ReviewComment[] {
  for (const entry of [...ask.thread].reverse()) {
    if (entry.author !== "human") continue;
    const reply = entry.reply;
    if (reply.outcome === "approved" || reply.outcome === "changes_requested") return reply.comments ?? [];
  }
  return [];
}

/** The line of a diff's text (counting from 1) that shows `line` of `file` on `side`, or null. */
export function diffTextLine(text: string, file: string, side: "old" | "new", line: number): number | null {
  const rows = text.split("\n");
  const clean = (name: string, prefix: string) => {
    const bare = name.split("\t")[0]!.trim();
    return bare.startsWith(prefix) ? bare.slice(prefix.length) : bare;
  };
  let minus = "";
  let path = "";
  let oldN = 0;
  let newN = 0;
  let oldLeft = 0;
  let newLeft = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (oldLeft > 0 || newLeft > 0) {
      const mark = row[0];
      if (mark === "\\") continue;
      const onOld = mark === " " || mark === "-";
      const onNew = mark === " " || mark === "+";
      if (path === file && ((side === "old" && onOld && oldN === line) || (side === "new" && onNew && newN === line))) return i + 1;
      if (onOld) {
        oldN++;
        oldLeft--;
      }
      if (onNew) {
        newN++;
        newLeft--;
      }
      if (!onOld && !onNew) oldLeft = newLeft = 0;
      continue;
    }
    if (row.startsWith("--- ")) minus = clean(row.slice(4), "a/");
    else if (row.startsWith("+++ ")) {
      const plus = clean(row.slice(4), "b/");
      path = plus === "/dev/null" ? minus : plus;
    } else {
      const hunk = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(row);
      if (hunk) {
        oldN = Number(hunk[1]);
        oldLeft = Number(hunk[2] ?? 1);
        newN = Number(hunk[3]);
        newLeft = Number(hunk[4] ?? 1);
      }
    }
  }
  return null;
}

/** Where an earlier comment's line is in the earlier block's text. */
function textLine(block: Lined, comment: ReviewComment): number | null {
  if (comment.line === undefined) return null;
  if (block.type === "code") return comment.line;
  return comment.file && comment.side ? diffTextLine(textOf(block), comment.file, comment.side, comment.line) : null;
}

/** Pairs each code or diff block of this round with the earlier round's: by file, else by place. */
function pair(earlier: Block[], current: Block[]): Map<number, number> {
  const pairs = new Map<number, number>();
  const taken = new Set<number>();
  const key = (b: Block, i: number) => (isLined(b) ? `${b.type}:${nameOf(b, i)}` : null);
  current.forEach((b, i) => {
    const k = key(b, i);
    const j = earlier.findIndex((e, n) => !taken.has(n) && k !== null && key(e, n) === k);
    if (j !== -1) {
      pairs.set(i, j);
      taken.add(j);
    }
  });
  current.forEach((b, i) => {
    if (pairs.has(i) || !isLined(b)) return;
    const e = earlier[i];
    if (e && !taken.has(i) && e.type === b.type) {
      pairs.set(i, i);
      taken.add(i);
    }
  });
  return pairs;
}

export function roundChanges(earlier: ReviewAsk, current: ReviewAsk, earlierRound: number): RoundChanges {
  const before = earlier.prompt.content;
  const now = current.prompt.content;
  const comments = commentsOf(earlier);
  const pairs = pair(before, now);
  const pairedEarlier = new Set(pairs.values());
  const said = (c: ReviewComment) => ({ label: anchorLabel(before, c), body: c.body });
  const blocks: BlockChange[] = [];

  const change = (old: Lined | undefined, oldIndex: number | undefined, cur: Lined | undefined, curIndex: number | undefined): BlockChange => {
    const name = cur ? nameOf(cur, curIndex!) : nameOf(old!, oldIndex!);
    const oldText = old ? textOf(old) : "";
    const newText = cur ? textOf(cur) : "";
    const mine = oldIndex === undefined ? [] : comments.filter((c) => c.block === oldIndex);
    const state = !old ? "new" : !cur ? "gone" : oldText === newText ? "unchanged" : "changed";
    const patch = state === "unchanged" ? "" : createTwoFilesPatch(name, name, oldText, newText, undefined, undefined, { context: 3, headerOptions: FILE_HEADERS_ONLY });
    const shown = patch ? diffLines(patch)[0] : undefined;
    const placed: ShownComment[] = [];
    const aside: BlockChange["aside"] = [];
    for (const c of mine) {
      const line = old && textLine(old, c);
      if (shown && line && shown.old.has(line)) {
        placed.push({ kind: "earlier", anchor: { block: curIndex ?? -1, file: shown.path, side: "old", line }, body: c.body, round: earlierRound });
      } else aside.push(said(c));
    }
    return { name, state, patch, placed, aside };
  };

  now.forEach((b, i) => {
    if (!isLined(b)) return;
    const j = pairs.get(i);
    blocks.push(change(j === undefined ? undefined : (before[j] as Lined), j, b, i));
  });
  before.forEach((b, j) => {
    if (isLined(b) && !pairedEarlier.has(j)) blocks.push(change(b, j, undefined, undefined));
  });
  const elsewhere = comments.filter((c) => !isLined(before[c.block] ?? ({ type: "markdown" } as Block))).map(said);
  return { blocks, elsewhere };
}
