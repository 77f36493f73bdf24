/**
 * Edits that turn `a` into `b`: an insertion, a deletion, a substitution, or two neighbours swapped (`modle` →
 * `model` is one), the slips a hand makes.
 */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : i)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      const swapped = i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1];
      if (swapped) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The known name `word` was most likely meant to be: one edit away for short words, two for longer ones, and never
 * further than half the word (so `ab` suggests nothing). Ties go to the first name given.
 */
export function closestName(word: string, names: Iterable<string>): string | undefined {
  const typed = word.toLowerCase();
  const allowed = Math.min(typed.length <= 4 ? 1 : 2, Math.floor(typed.length / 2));
  let best: { name: string; edits: number } | undefined;
  for (const name of names) {
    if (name === word) continue;
    const edits = distance(typed, name.toLowerCase());
    if (edits <= allowed && (best === undefined || edits < best.edits)) best = { name, edits };
  }
  return best?.name;
}
