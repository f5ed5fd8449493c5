// What every benchmark reports: a row of the table, and percentiles of a run of samples.
export interface Row {
  figure: string;
  p50?: number;
  p90?: number;
  p99?: number;
  max?: number;
  value?: string;
  goal: string;
  met?: boolean;
}

export const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

export const spread = (xs: number[]) => ({ p50: pct(xs, 50), p90: pct(xs, 90), p99: pct(xs, 99), max: Math.max(...xs) });
