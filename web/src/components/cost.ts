import { h } from '../dom.js';
import { costText, exact, plural } from '../format.js';

/** Why part of a cost is unknown: answers of a model without a price, answers without usage figures. */
function unknownWhy(unpriced: number, unreported: number): string {
  return [
    unpriced > 0 ? `${plural(unpriced, 'answer')} of a model without a price: set model_list[].pricing` : '',
    unreported > 0 ? `${plural(unreported, 'answer')} without usage figures from the provider` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/**
 * A cost as text, marked (and explained on hover) when answers of a model without a price, or answers that came
 * without usage figures, leave part of it unknown: never $0.00 for what was not counted.
 */
export function costTag(calls: number, usd: number, unpriced: number, unreported = 0, id?: string): HTMLElement {
  const unknown = Math.min(calls, unpriced + unreported);
  const title = unknown > 0 ? unknownWhy(unpriced, unreported) : `$${usd}`;
  return h(
    'span',
    { class: unknown > 0 ? 'cost unknown' : 'cost', title, ...(id ? { id } : {}) },
    costText(calls, usd, unknown),
  );
}

/** Input and output tokens, `unknown` when no answer reported them, `+ unknown` when some did not. */
export function tokensText(calls: number, input: number, output: number, unreported: number): string {
  if (calls > 0 && unreported >= calls) return 'tokens unknown';
  return `${exact(input)} in / ${exact(output)} out tokens${unreported > 0 ? ' + unknown' : ''}`;
}

/** `$0.00012`, `$0.00014` rather than `$0.0001` twice: each value axis label with the digits that tell it apart. */
export function moneyTick(usd: number, ticks: number[]): string {
  if (usd === 0) return '$0';
  let digits = 2;
  while (digits < 8 && new Set(ticks.map((t) => t.toFixed(digits))).size < ticks.length) digits++;
  return `$${usd.toFixed(digits)}`;
}
