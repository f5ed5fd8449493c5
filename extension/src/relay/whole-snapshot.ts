import type { Ask, AskSummary, Snapshot } from "@loopback/shared/generated/types";
import { RelayError } from "./relay-error";

/** Every ask of a snapshot whole, as the inbox keeps them. */
export interface WholeSnapshot {
  open: Ask[];
  recent: Ask[];
}

/** Bodies read at once while a snapshot is made whole. */
const READS_AT_ONCE = 4;

/**
 * Makes a snapshot of summaries whole: the asks it carries whole, those held already at the same
 * change (`held`), and the rest read by id, a few at a time. An ask gone meanwhile is left out; the
 * frame that closed or removed it follows.
 */
export async function wholeSnapshot(
  snapshot: Snapshot,
  held: (id: string) => Ask | undefined,
  read: (id: string) => Promise<Ask>,
): Promise<WholeSnapshot> {
  const known = new Map(snapshot.whole.map((a) => [a.id, a]));
  const current = (s: AskSummary) => {
    const ask = known.get(s.id) ?? held(s.id);
    return ask && ask.updatedAt === s.updatedAt ? ask : undefined;
  };
  const missing = [...snapshot.open, ...snapshot.recent].filter((s) => !current(s)).map((s) => s.id);
  const fetched = new Map<string, Ask>();
  let next = 0;
  const reader = async () => {
    while (next < missing.length) {
      const id = missing[next++]!;
      const ask = await read(id).catch((e) => {
        if (e instanceof RelayError && e.status === 404) return undefined;
        throw e;
      });
      if (ask) fetched.set(id, ask);
    }
  };
  await Promise.all(Array.from({ length: READS_AT_ONCE }, reader));
  const whole = (list: AskSummary[]) => list.flatMap((s) => current(s) ?? fetched.get(s.id) ?? []);
  return { open: whole(snapshot.open), recent: whole(snapshot.recent) };
}
