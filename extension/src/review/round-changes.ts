// What changed between two rounds of a review: for each code block a diff of its code then and
// now, and for each file of a diff the code the rounds show of it (its new side, and its old side
// when that moved too) compared line by line, never the patch text. The earlier round's comments
// sit on the lines they were on, so the person can check each one was dealt with. Nothing said
// earlier is left out: a comment whose line the changes do not show is listed with its block.
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import type { Block, ReviewAsk, ReviewComment } from "@loopback/shared/generated/types";
import { anchorLabel, diffLines, withHeaders } from "@loopback/shared/ask-rules/index";
import type { ShownComment } from "./line-comments.svelte";
import { fileSides, type FileSides } from "./diff-sides";
import { sidesPatch } from "./sides-patch";

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
  /** What changed, by code block and by file; unchanged ones are only named in `unchanged`. */
  blocks: BlockChange[];
  unchanged: string[];
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

  const codeChange = (old: Extract<Lined, { type: "code" }> | undefined, oldIndex: number | undefined, cur: Extract<Lined, { type: "code" }> | undefined, curIndex: number | undefined): BlockChange => {
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
        placed.push({ kind: "earlier", anchor: { block: -1, file: shown.path, side: "old", line }, body: c.body, round: earlierRound });
      } else aside.push(said(c));
    }
    return { name, state, patch, placed, aside };
  };

  /** One file of a diff: its new side then and now, and its old side when the base moved too. */
  const fileChanges = (old: FileSides | undefined, oldIndex: number | undefined, cur: FileSides | undefined): BlockChange[] => {
    const path = (cur ?? old)!.path;
    const mine = oldIndex === undefined ? [] : comments.filter((c) => c.block === oldIndex && c.file === path);
    const state = !old ? "new" : !cur ? "gone" : "changed";
    const code = sidesPatch(path, old?.new ?? [], cur?.new ?? []);
    const base = old && cur ? sidesPatch(path, old.old, cur.old) : "";
    const out: BlockChange[] = [];
    const placedOnes = new Set<ReviewComment>();
    const place = (patch: string, side: "old" | "new", name: string) => {
      const shown = diffLines(patch)[0];
      const placed: ShownComment[] = [];
      for (const c of mine) {
        if (c.side !== side || c.line === undefined || !shown?.old.has(c.line)) continue;
        placedOnes.add(c);
        placed.push({ kind: "earlier", anchor: { block: -1, file: shown.path, side: "old", line: c.line }, body: c.body, round: earlierRound });
      }
      out.push({ name, state, patch, placed, aside: [] });
    };
    if (code) place(code, "new", path);
    if (base) place(base, "old", `${path} (the code it changes)`);
    if (out.length === 0) return [];
    out[0]!.aside = mine.filter((c) => !placedOnes.has(c)).map(said);
    return out;
  };

  const unchanged: string[] = [];
  const add = (changes: BlockChange[], names: string[]) => {
    if (changes.length) blocks.push(...changes);
    else unchanged.push(...names);
  };
  const diffChanges = (old: Extract<Lined, { type: "diff" }> | undefined, oldIndex: number | undefined, cur: Extract<Lined, { type: "diff" }> | undefined) => {
    const before = old ? fileSides(old.diff, old.filename) : [];
    const after = cur ? fileSides(cur.diff, cur.filename) : [];
    for (const file of after) {
      const was = before.find((f) => f.path === file.path);
      const changes = fileChanges(was, was ? oldIndex : undefined, file);
      add(changes, [file.path]);
      // A file whose code is the same may still have comments said on it: kept with the list.
      if (!changes.length && was && oldIndex !== undefined) elsewhereSaid.push(...comments.filter((c) => c.block === oldIndex && c.file === file.path).map(said));
    }
    for (const file of before) if (!after.some((f) => f.path === file.path)) blocks.push(...fileChanges(file, oldIndex, undefined));
  };

  const elsewhereSaid: { label: string; body: string }[] = [];
  now.forEach((b, i) => {
    if (!isLined(b)) return;
    const j = pairs.get(i);
    const was = j === undefined ? undefined : before[j];
    if (b.type === "code") {
      const change = codeChange(was?.type === "code" ? was : undefined, j, b, i);
      if (change.state === "unchanged" && !change.aside.length) unchanged.push(change.name);
      else blocks.push(change);
    } else diffChanges(was?.type === "diff" ? was : undefined, j, b);
  });
  before.forEach((b, j) => {
    if (!isLined(b) || pairedEarlier.has(j)) return;
    if (b.type === "code") blocks.push(codeChange(b, j, undefined, undefined));
    else diffChanges(b, j, undefined);
  });
  const elsewhere = [...comments.filter((c) => !isLined(before[c.block] ?? ({ type: "markdown" } as Block))).map(said), ...elsewhereSaid];
  return { blocks, unchanged, elsewhere };
}
