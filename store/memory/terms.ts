/**
 * How recall splits and keeps words. Words nearly every message has ("the", "what", "you") are left out of the index:
 * they tell no turn apart, and a query that kept them would score most of the log on every search.
 */
const STOP_WORDS = new Set(
  (
    `a about above after again all am an and any are as at be because been before being below between both but by can
did do does doing down during each few for from further had has have having he her here hers him his how i if in into
is it its itself just me more most my no nor not now of off on once only or other our ours out over own same she should
so some such than that the their theirs them then there these they this those through to too under until up very was we
were what when where which while who whom why will with would you your yours yourself ` +
    `tell told said say says please`
  ).split(/\s+/),
);

/** Lowercased, stop words dropped (`null` tells MiniSearch to leave the term out). */
export function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  return lower.length === 0 || STOP_WORDS.has(lower) ? null : lower;
}
