import { h } from '../dom.js';
import { costText, plural } from '../format.js';

/** A cost as text, marked (and explained on hover) when answers of a model without a price leave part of it unknown. */
export function costTag(calls: number, usd: number, unpriced: number, id?: string): HTMLElement {
  const unknown = unpriced > 0;
  const title = unknown
    ? `${plural(unpriced, 'answer')} of a model without a price: set model_list[].pricing`
    : `$${usd}`;
  return h(
    'span',
    { class: unknown ? 'cost unknown' : 'cost', title, ...(id ? { id } : {}) },
    costText(calls, usd, unpriced),
  );
}
