/** One line of `npm run bench`: stable names, so figures can be compared across commits. */
export interface BenchRow {
  name: string;
  value: number;
  unit: string;
}

export type BenchSuite = () => Promise<BenchRow[]>;

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
