/** Okapi BM25 with the usual constants. */
const K1 = 1.2;
const B = 0.75;

/**
 * Words of a tool name or description: `get_sum` and `get-sum` give `get`, `sum`; a camelCase word
 * counts whole and in parts (`createIssue`: `createissue`, `create`, `issue`), so `GitHub` still
 * matches `github`.
 */
const WORD = /[\p{L}\p{N}]+/gu;
const CAMEL_STEP = /([\p{Ll}\p{N}])(\p{Lu})/gu;

export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const word of text.match(WORD) ?? []) {
    const lower = word.toLowerCase();
    tokens.push(lower);
    // Only a word with capitals can hide camelCase parts; most words have none.
    if (lower === word) continue;
    const parts = word.replace(CAMEL_STEP, '$1 $2').toLowerCase().split(' ');
    if (parts.length > 1) tokens.push(...parts);
  }
  return tokens;
}

export interface Bm25Document {
  id: string;
  text: string;
}

export interface Bm25Hit {
  id: string;
  score: number;
}

/** A keyword index over a fixed set of documents; build once, search many times. */
export class Bm25Index {
  private readonly terms: Array<Map<string, number>>;
  private readonly lengths: number[];
  private readonly documentFrequency = new Map<string, number>();
  private readonly averageLength: number;

  constructor(private readonly documents: readonly Bm25Document[]) {
    this.terms = documents.map((doc) => {
      const counts = new Map<string, number>();
      for (const token of tokenize(doc.text)) counts.set(token, (counts.get(token) ?? 0) + 1);
      for (const token of counts.keys())
        this.documentFrequency.set(token, (this.documentFrequency.get(token) ?? 0) + 1);
      return counts;
    });
    this.lengths = this.terms.map((counts) => [...counts.values()].reduce((a, b) => a + b, 0));
    this.averageLength = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, documents.length);
  }

  /** Documents matching at least one query word, best first; ties keep document order. */
  search(query: string, limit: number): Bm25Hit[] {
    const words = [...new Set(tokenize(query))];
    const total = this.documents.length;
    const hits: Bm25Hit[] = [];
    this.terms.forEach((counts, index) => {
      let score = 0;
      for (const word of words) {
        const frequency = counts.get(word);
        if (!frequency) continue;
        const containing = this.documentFrequency.get(word) ?? 0;
        const idf = Math.log(1 + (total - containing + 0.5) / (containing + 0.5));
        const norm = 1 - B + (B * this.lengths[index]!) / (this.averageLength || 1);
        score += (idf * frequency * (K1 + 1)) / (frequency + K1 * norm);
      }
      if (score > 0) hits.push({ id: this.documents[index]!.id, score });
    });
    return hits.sort((a, b) => b.score - a.score).slice(0, limit);
  }
}
