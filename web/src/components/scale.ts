/**
 * Ticks at 1, 2 or 5 times a power of ten from 0 to at least `total`, about `wanted` of them, a step no smaller
 * than `least` (1 for milliseconds; 0 lets dollar amounts step by fractions of a cent).
 */
export function ticks(total: number, wanted: number, least = 1): number[] {
  const rough = Math.max(total / wanted, least, Number.MIN_VALUE);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? power * 10;
  const out: number[] = [];
  // Counted, not summed, so a step of 0.002 does not drift.
  for (let i = 0; i * step <= total + step * 1e-9; i++) out.push(Number((i * step).toPrecision(12)));
  return out;
}
