import { errorText, getJson } from '../api.js';
import { h, replace } from '../dom.js';
import { stamp } from '../format.js';
import type { MemoryHit, MemorySearch } from '../../../bus/api-shapes.js';
import type { Page } from './page.js';

/** Where a hit was said: a past turn (linked to its turn view) with its session and time, or a memory file's lines. */
function hitItem(hit: MemoryHit): HTMLElement {
  const where =
    hit.source === 'sessions'
      ? h(
          'div',
          { class: 'memory-where' },
          h('a', { class: 'memory-turn', href: `#/turn/${encodeURIComponent(hit.turn_id)}` }, hit.turn_id),
          ' · ',
          h('time', { datetime: hit.at, title: hit.at }, stamp(Date.parse(hit.at))),
          ' · ',
          h('a', { class: 'memory-session', href: `#/sessions/${encodeURIComponent(hit.session)}` }, hit.session),
        )
      : h('div', { class: 'memory-where' }, h('code', { class: 'memory-file' }, hit.citation));
  return h(
    'li',
    { class: 'card memory-hit', 'data-source': hit.source },
    where,
    h('pre', { class: 'memory-snippet' }, hit.snippet),
  );
}

/** Search what the agent remembers: its memory files and every past chat, each hit citing where it was said. */
export const memoryPage: Page = (root, param) => {
  const query = h('input', { id: 'memory-query', type: 'search', placeholder: 'what was said about…', value: param });
  const results = h('ol', { id: 'memory-results', class: 'memory-results' });
  const search = async (): Promise<void> => {
    const q = query.value.trim();
    if (!q) return;
    replace(results, 'Searching…');
    const reply = await getJson<MemorySearch>(`/api/memory/search?q=${encodeURIComponent(q)}`);
    if (!reply.ok) return replace(results, h('li', { class: 'error' }, errorText(reply.body, reply.status)));
    if (reply.body.results.length === 0)
      return replace(results, h('li', { class: 'memory-none' }, `Nothing in memory matches "${q}".`));
    replace(results, ...reply.body.results.map(hitItem));
  };
  const form = h(
    'form',
    {
      id: 'memory-search-form',
      onsubmit: (event) => {
        event.preventDefault();
        void search();
      },
    },
    query,
    h('button', { type: 'submit', id: 'memory-search' }, 'Search'),
  );
  replace(
    root,
    h('div', { class: 'page-head' }, h('h1', {}, 'Memory')),
    h('section', { class: 'card' }, form, results),
  );
  if (param) void search();
  return () => {};
};
