// Whether a device wants to hear about an ask now: its projects, and its quiet hours on its own clock.
import type { Loudness, QuietHours } from "@loopback/shared/generated/types";

/** Minutes since midnight at `at` in `timeZone`. */
function minutesOfDay(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return part("hour") * 60 + part("minute");
}

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

export function isQuiet(quiet: QuietHours, at: Date): boolean {
  const now = minutesOfDay(at, quiet.timeZone);
  const from = minutes(quiet.from);
  const until = minutes(quiet.until);
  if (from === until) return false;
  // A stretch across midnight (22:00 to 07:00) is quiet after `from` or before `until`.
  return from < until ? now >= from && now < until : now >= from || now < until;
}

export function wantsPush(loudness: Loudness, project: string | undefined, at: Date): boolean {
  if (loudness.projects && !(project !== undefined && loudness.projects.includes(project))) return false;
  return !(loudness.quietHours && isQuiet(loudness.quietHours, at));
}

export function knownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone });
    return true;
  } catch {
    return false;
  }
}
