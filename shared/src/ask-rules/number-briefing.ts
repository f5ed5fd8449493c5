import type { BriefingInput, BriefingPrompt } from "../generated/types.ts";
import { problem, type LoopbackProblem } from "../problems.ts";
import { toPoint } from "./briefing-points.ts";

/** Counted straight through every section of the briefing as sent; sub-points added later do not count. */
export const MAX_BRIEFING_POINTS = 50;

export function checkBriefingInput(input: BriefingInput): LoopbackProblem | null {
  const count = input.sections.reduce((sum, section) => sum + section.points.length, 0);
  return count > MAX_BRIEFING_POINTS ? problem("briefing.too_many_points", `This one has ${count}.`) : null;
}

/** Numbers a briefing's points `1`, `2`, `3`… straight through its sections. Throws what `checkBriefingInput` refuses. */
export function numberBriefing(input: BriefingInput): BriefingPrompt {
  const refused = checkBriefingInput(input);
  if (refused) throw refused;
  let next = 1;
  return {
    title: input.title,
    ...(input.summary !== undefined && { summary: input.summary }),
    sections: input.sections.map((section) => ({
      ...(section.title !== undefined && { title: section.title }),
      points: section.points.map((point) => toPoint(String(next++), point)),
    })),
  };
}
