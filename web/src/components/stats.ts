import { h, type Child } from '../dom.js';

/** Figures as small tiles: a label over each value. */
export function stats(items: Array<[string, Child]>, id?: string): HTMLElement {
  return h(
    'div',
    { class: 'stats', ...(id ? { id } : {}) },
    ...items.map(([label, value]) =>
      h('div', { class: 'stat' }, h('div', { class: 'stat-label' }, label), h('div', { class: 'stat-value' }, value)),
    ),
  );
}
