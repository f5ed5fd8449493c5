import type { ReviewAsk, ReviewComment } from "@loopback/shared/generated/types";
import { hasWords } from "@loopback/shared/ask-rules/index";
import { diffLineLabel } from "../blocks/diff";

/** Where a comment sits: a block, and on code or a diff one line of it. */
export type Anchor = Omit<ReviewComment, "body">;

export const sameAnchor = (a: Anchor, b: Anchor) => a.block === b.block && a.file === b.file && a.side === b.side && a.line === b.line;

let ids = 0;

/** A comment the person is writing: editable, and deletable, until the reply is sent. */
export class DraftComment {
  readonly id = `comment-${++ids}`;
  body = $state("");
  editing = $state(true);
  constructor(readonly anchor: Anchor) {}
}

/**
 * One comment as a block shows it: the person's own draft; one sent with this review's verdict; or
 * one from an earlier round. Only a draft can be changed.
 */
export type ShownComment =
  | { kind: "draft"; anchor: Anchor; draft: DraftComment }
  | { kind: "sent"; anchor: Anchor; body: string }
  | { kind: "earlier"; anchor: Anchor; body: string; round: number };

/** What a review's blocks need to show comments on them and, when the person may, take new ones. */
export interface BlockCommenting {
  /** The comments on one block, in the order they were made. */
  on(block: number): ShownComment[];
  /** Opens a comment on a line (or the one already there); absent where comments are only shown. */
  start?(anchor: Anchor): void;
  remove?(draft: DraftComment): void;
}

/** The person's comments on a review, kept in its draft until the reply is sent. */
export class ReviewComments implements BlockCommenting {
  list = $state<DraftComment[]>([]);

  on(block: number): ShownComment[] {
    return this.list.filter((c) => c.anchor.block === block).map((draft) => ({ kind: "draft", anchor: draft.anchor, draft }));
  }

  start(anchor: Anchor): void {
    const existing = this.list.find((c) => sameAnchor(c.anchor, anchor));
    if (existing) existing.editing = true;
    else this.list.push(new DraftComment(anchor));
  }

  remove(draft: DraftComment): void {
    this.list = this.list.filter((c) => c !== draft);
  }

  /** Every comment with words in it, as the reply carries them; an empty one says nothing. */
  get toSend(): ReviewComment[] {
    return this.list.filter((c) => hasWords(c.body)).map((c) => ({ ...c.anchor, body: c.body.trim() }));
  }
}

/** A read-only set of comments, as placed on the changes between two rounds. */
export class ShownComments implements BlockCommenting {
  constructor(private byBlock: Map<number, ShownComment[]>) {}
  on(block: number): ShownComment[] {
    return this.byBlock.get(block) ?? [];
  }
}

/** The comments sent with a review's verdicts, shown beside the lines they were made on. */
export function sentComments(review: ReviewAsk): ShownComments {
  const byBlock = new Map<number, ShownComment[]>();
  for (const entry of review.thread) {
    if (entry.author !== "human" || (entry.reply.outcome !== "approved" && entry.reply.outcome !== "changes_requested")) continue;
    for (const { body, ...anchor } of entry.reply.comments ?? []) byBlock.set(anchor.block, [...(byBlock.get(anchor.block) ?? []), { kind: "sent", anchor, body }]);
  }
  return new ShownComments(byBlock);
}

/** How a comment's place reads above it: "Line 12", "New line 12", "Old line 3". */
export function lineLabel(anchor: Pick<Anchor, "side" | "line">): string {
  if (anchor.line === undefined) return "On this block";
  return anchor.side ? diffLineLabel({ side: anchor.side, line: anchor.line }) : `Line ${anchor.line}`;
}
