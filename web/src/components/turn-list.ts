import { getJson } from '../api.js';
import { busy, h, replace } from '../dom.js';
import { ago, channelName, chatName, duration, exact, preview, stamp } from '../format.js';
import type { TurnListRow } from '../../../bus/api-shapes.js';
import { pill, toneOf } from './ids.js';

const PAGE = 20;

type TurnPage = { total: number; offset: number; turns: TurnListRow[] };

function row(turn: TurnListRow): HTMLElement {
  return h(
    'li',
    { 'data-turn': turn.turn },
    h('a', { href: `#/turn/${turn.turn}`, class: 'turn-link' }, `“${preview(turn.text, 70)}”`),
    pill(turn.outcome, toneOf(turn.outcome === 'completed' ? 'done' : turn.outcome)),
    h(
      'span',
      { class: 'muted small' },
      `${channelName(turn.channel)} · ${chatName(turn.chat)}` +
        `${turn.ms === undefined ? '' : ` · ${duration(turn.ms)}`} · `,
      h('span', { title: stamp(turn.at) }, ago(turn.at)),
    ),
  );
}

/**
 * The turns that ended, newest first, searchable and a page at a time from `GET /api/turns`: however long the log,
 * the page holds one page of them. `reload()` reads the current page again (a turn ended).
 */
export function finishedTurns(): { node: HTMLElement; reload: () => void } {
  let offset = 0;
  let asked = 0;
  const search = h('input', {
    type: 'search',
    id: 'turns-search',
    class: 'turns-search',
    placeholder: 'Search finished turns (message, channel, id)',
    'aria-label': 'search finished turns',
  });
  const list = h('ol', { id: 'finished-turns' });
  const pager = h('div', { class: 'pager', id: 'turns-pager' });
  const load = async (): Promise<void> => {
    const mine = ++asked;
    busy(list, true);
    const q = search.value.trim();
    const query = `finished=true&offset=${offset}&limit=${PAGE}${q ? `&q=${encodeURIComponent(q)}` : ''}`;
    const reply = await getJson<TurnPage>(`/api/turns?${query}`);
    // An answer to an older search is dropped.
    if (mine !== asked) return;
    busy(list, false);
    if (!reply.ok) return;
    const { total, turns } = reply.body;
    replace(
      list,
      ...(turns.length ? turns.map(row) : [h('li', { class: 'muted' }, q ? 'No finished turn matches.' : 'None yet.')]),
    );
    const step = (label: string, to: number, enabled: boolean, id: string) =>
      h(
        'button',
        {
          type: 'button',
          class: 'secondary small',
          id,
          disabled: !enabled,
          onclick: () => {
            offset = to;
            void load();
          },
        },
        label,
      );
    replace(
      pager,
      step('Newer', Math.max(0, offset - PAGE), offset > 0, 'turns-newer'),
      h(
        'span',
        { class: 'muted', id: 'turns-range' },
        total ? `${exact(offset + 1)}–${exact(offset + turns.length)} of ${exact(total)}` : '0 turns',
      ),
      step('Older', offset + PAGE, offset + PAGE < total, 'turns-older'),
    );
  };
  let typing: ReturnType<typeof setTimeout> | undefined;
  search.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      offset = 0;
      void load();
    }, 200);
  });
  void load();
  const node = h(
    'section',
    { class: 'group finished-turns', id: 'finished-section' },
    h('h2', {}, 'Finished turns'),
    search,
    list,
    pager,
  );
  return { node, reload: () => void load() };
}
