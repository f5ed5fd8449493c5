// Stored messages keep the revision that wrote them. Reading one written by an older revision
// upgrades it, step by step, to the revision this code writes (docs/design/versioned-messages.md).
import { REVISION, REVISIONS } from "@loopback/shared/generated/revision";
import type { Ask, Entry } from "@loopback/shared/generated/types";

type Step = (json: any) => any;

/**
 * `STEPS[r]` upgrades a message of revision r to revision r+1. Revisions 2 and 3 only added to the
 * shapes (revision 3 made `feedback` optional), so every older message is already a newer one.
 */
const OPENING_STEPS: Record<string, Step> = { "1": (j) => j, "2": (j) => j };
const ENTRY_STEPS: Record<string, Step> = { "1": (j) => j, "2": (j) => j };

function upgrade(steps: Record<string, Step>, revision: string, json: any): any {
  if (!REVISIONS.includes(revision as any)) {
    // Written by a newer relay that was rolled back: it is served as it is, never rewritten.
    return json;
  }
  let r = revision;
  let out = json;
  while (r !== REVISION) {
    out = steps[r](out);
    r = String(Number(r) + 1);
  }
  return out;
}

export const upgradeOpening = (revision: string, json: any) => upgrade(OPENING_STEPS, revision, json);
export const upgradeEntry = (revision: string, json: any) => upgrade(ENTRY_STEPS, revision, json);

/** An ask as stored, its opening and each turn brought up from the revision that wrote it. */
export function assemble(
  row: { id: string; status: Ask["status"]; revision: string; opening: string; createdAt: string; updatedAt: string; closedAt: string | null },
  thread: { revision: string; body: string }[],
): Ask {
  const open = upgradeOpening(row.revision, JSON.parse(row.opening));
  return {
    ...open,
    id: row.id,
    status: row.status,
    waiting: false,
    thread: thread.map((e) => upgradeEntry(e.revision, JSON.parse(e.body)) as Entry),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    ...(row.closedAt ? { closedAt: row.closedAt } : {}),
  } as Ask;
}
