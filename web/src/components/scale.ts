/**
 * Ticks at 1, 2 or 5 times a power of ten from 0 to at least `total`, about `wanted` of them, a step of at least 1
 * (ms).
 */
export function ticks(total: number, wanted: number): number[] {
  const rough = Math.max(total / wanted, 1);
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? power * 10;
  const out: number[] = [];
  for (let i = 0; i * step <= total; i++) out.push(i * step);
  return out;
}
