/** Reciprocal rank fusion's constant: a hit's weight in one ranking is 1 / (K + its rank), rank 1 the best. */
export const RRF_K = 60;

/** Cosine similarity of two vectors of one model (0 when either is all zeros). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * Merges rankings (each a list of keys, best first) by reciprocal rank fusion: BM25 scores and cosine similarities
 * are not on one scale, their ranks are. Ties keep the first ranking's order.
 */
export function fuse(rankings: string[][]): Array<{ key: string; score: number }> {
  const scores = new Map<string, number>();
  for (const ranking of rankings)
    ranking.forEach((key, i) => scores.set(key, (scores.get(key) ?? 0) + 1 / (RRF_K + i + 1)));
  return [...scores].map(([key, score]) => ({ key, score })).sort((a, b) => b.score - a.score);
}
