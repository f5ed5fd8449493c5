import type { Ask, BriefingAsk, BriefingPoint, Point, Responded } from "../generated/types.ts";
import { hasWords } from "./has-words.ts";
import { latestReply } from "./latest-reply.ts";

/** `3` is level one, `3.1` level two, `3.1.2` level three: the deepest a point goes. */
export const MAX_POINT_DEPTH = 3;

export const pointDepth = (id: string): number => id.split(".").length;

export function parentPoint(id: string): string | undefined {
  const dot = id.lastIndexOf(".");
  return dot < 0 ? undefined : id.slice(0, dot);
}

/** The point itself, then each point above it up to its level-one point: `3.1.2`, `3.1`, `3`. */
export function pointAndAncestors(id: string): string[] {
  const chain: string[] = [];
  for (let at: string | undefined = id; at !== undefined; at = parentPoint(at)) chain.push(at);
  return chain;
}

/** The level-one point a point sits beneath, or the point itself when it is level one. */
export const topPoint = (id: string): string => id.split(".")[0]!;

export function toPoint(id: string, { title, detail, content }: BriefingPoint): Point {
  return { id, title, ...(detail !== undefined && { detail }), ...(content !== undefined && { content }) };
}

/** Every point of a briefing in reading order: each prompt point followed by the sub-points beneath it. */
export function allPoints(ask: Ask): Point[] {
  if (ask.kind !== "briefing") return [];
  const beneath = subPointsByParent(ask);
  const ordered: Point[] = [];
  const visit = (point: Point) => {
    ordered.push(point);
    for (const sub of beneath.get(point.id) ?? []) visit(sub);
  };
  for (const section of ask.prompt.sections) for (const point of section.points) visit(point);
  return ordered;
}

/** The sub-points directly beneath a point, in the order the agent added them. */
export function subPoints(ask: Ask, id: string): Point[] {
  return ask.kind === "briefing" ? (subPointsByParent(ask).get(id) ?? []) : [];
}

export function resolvedPoints(ask: Ask): Point[] {
  const resolved = resolvedBy(ask);
  return allPoints(ask).filter((point) => resolved(point.id));
}

export function openPoints(ask: Ask): Point[] {
  const resolved = resolvedBy(ask);
  return allPoints(ask).filter((point) => !resolved(point.id));
}

/** What the agent must answer on its move: each point the person wrote on in their latest reply and left open. */
export function pointsAwaitingAnswer(ask: Ask): Point[] {
  if (ask.kind !== "briefing" || ask.status !== "awaiting_agent") return [];
  const latest = latestReply(ask);
  return latest?.reply.outcome === "responded" ? leftToAnswer(ask, latest.reply) : [];
}

/** The points a reply wrote on and left open, read on an ask whose thread already holds that reply. */
export function leftToAnswer(ask: Ask, reply: Responded): Point[] {
  const writtenOn = new Set(reply.points.filter((point) => hasWords(point.text)).map((point) => point.point));
  return openPoints(ask).filter((point) => writtenOn.has(point.id));
}

function subPointsByParent(ask: BriefingAsk): Map<string, Point[]> {
  const beneath = new Map<string, Point[]>();
  for (const entry of ask.thread) {
    if (entry.author !== "agent") continue;
    for (const point of entry.points ?? []) {
      const parent = parentPoint(point.id);
      if (parent !== undefined) beneath.set(parent, [...(beneath.get(parent) ?? []), point]);
    }
  }
  return beneath;
}

// Resolving a point closes everything beneath it, and nothing can be added beneath a closed point,
// so a point is resolved exactly when it or one of its ancestors was ever marked resolved.
function resolvedBy(ask: Ask): (id: string) => boolean {
  const marked = new Set<string>();
  for (const entry of ask.thread) {
    if (entry.author !== "human" || entry.reply.outcome !== "responded") continue;
    for (const point of entry.reply.points) if (point.resolved) marked.add(point.point);
  }
  return (id) => pointAndAncestors(id).some((at) => marked.has(at));
}
