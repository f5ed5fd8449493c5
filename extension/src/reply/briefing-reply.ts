import type { BriefingAsk, Point, PointReply, Responded } from "@loopback/shared/generated/types";
import { hasWords, parentPoint, pointAndAncestors } from "@loopback/shared/ask-rules/index";
import type { PointDraft } from "./draft.svelte";

/** Whether a point is resolved by the draft: marked itself, or beneath a point marked resolved. */
export function resolvedInDraft(id: string, drafts: Record<string, PointDraft>): boolean {
  return pointAndAncestors(id).some((at) => drafts[at]?.resolved);
}

/**
 * The `responded` reply a briefing draft amounts to: every open point written on or marked resolved.
 * Words on a sub-point go to the agent even when a point above it is resolved.
 */
export function buildResponded(open: Point[], drafts: Record<string, PointDraft>): Responded {
  const points: PointReply[] = [];
  for (const { id } of open) {
    const draft = drafts[id];
    if (!draft) continue;
    // Resolving a point resolves what is beneath it; marking those resolved again would say nothing new.
    const parent = parentPoint(id);
    const resolved = draft.resolved && !(parent !== undefined && resolvedInDraft(parent, drafts));
    const text = draft.text.trim();
    if (!hasWords(text) && !resolved) continue;
    points.push({ point: id, ...(hasWords(text) ? { text } : {}), ...(resolved ? { resolved: true } : {}) });
  }
  return { outcome: "responded", points };
}

export type PointTurn =
  | { author: "human"; text?: string; resolved?: boolean; at: string }
  | { author: "agent"; answer: string; content?: import("@loopback/shared/generated/types").Block[]; at: string };

/** Everything said on one point, oldest first. */
export function turnsOn(ask: BriefingAsk, id: string): PointTurn[] {
  const turns: PointTurn[] = [];
  for (const entry of ask.thread) {
    if (entry.author === "agent") {
      if (entry.point === id) turns.push({ author: "agent", answer: entry.answer, content: entry.content, at: entry.at });
    } else if (entry.reply.outcome === "responded") {
      const said = entry.reply.points.find((p) => p.point === id);
      if (said) turns.push({ author: "human", text: said.text, resolved: said.resolved, at: entry.at });
    }
  }
  return turns;
}
