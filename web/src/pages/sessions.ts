import { errorText, getJson, sendJson } from '../api.js';
import { transcriptGroups } from '../components/conversation.js';
import { costTag, tokensText } from '../components/cost.js';
import { idChip, pill, toneOf } from '../components/ids.js';
import { stats } from '../components/stats.js';
import { busy, h, replace } from '../dom.js';
import { ago, channelName, chatName, duration, exact, plural, preview, sessionParts, stamp } from '../format.js';
import type { SessionDetail, SessionRow } from '../../../bus/api-shapes.js';
import type { Page } from './page.js';

const CHAT_SESSION = 'tern.chat.session';

function sessionName(row: SessionRow): string {
  return `${channelName(row.channel)} · ${chatName(row.chat)}`;
}

function searchText(row: SessionRow): string {
  return [row.session, row.session_key, channelName(row.channel), row.chat, row.sender ?? '', row.agent, row.last_text]
    .join(' ')
    .toLowerCase();
}

function sessionItem(row: SessionRow): HTMLElement {
  return h(
    'a',
    { class: 'card session-item', href: `#/sessions/${row.session}`, 'data-session': row.session },
    h(
      'div',
      { class: 'session-top' },
      h(
        'span',
        { class: 'session-name' },
        h('span', { class: 'chip channel' }, channelName(row.channel)),
        ` ${chatName(row.chat)}`,
      ),
      h('span', { class: 'muted', title: stamp(row.last_at) }, ago(row.last_at)),
    ),
    h(
      'div',
      { class: 'session-facts muted' },
      `agent ${row.agent || '—'}`,
      row.sender ? ` · from ${row.sender}` : '',
      ` · ${plural(row.turns, 'turn')} · ${plural(row.messages, 'message')} · ` +
        `${tokensText(row.model_calls, row.input_tokens, row.output_tokens, row.unreported_calls)} · cost `,
      costTag(row.model_calls, row.cost_usd, row.unpriced_calls, row.unreported_calls),
    ),
    h('div', { class: 'session-last' }, preview(row.last_text, 120)),
  );
}

function detailView(detail: SessionDetail, clear: () => void): HTMLElement {
  const about = detail.about;
  const parts = sessionParts(about.session_key);
  const webChat = about.channel === 'pico' && about.chat.startsWith('direct:');
  const resume = (): void => {
    localStorage.setItem(CHAT_SESSION, about.chat.slice('direct:'.length));
    window.location.hash = `#/chat/${about.chat.slice('direct:'.length)}`;
  };
  return h(
    'section',
    { id: 'session-detail', class: 'session-detail' },
    h(
      'div',
      { class: 'page-head' },
      h('h1', {}, sessionName(about)),
      webChat
        ? h('button', { type: 'button', class: 'secondary', id: 'session-resume', onclick: resume }, 'Continue in Chat')
        : null,
      h('button', { type: 'button', class: 'danger', id: 'session-clear', onclick: clear }, 'Clear history'),
    ),
    stats(
      [
        ['session', idChip(about.session)],
        ['agent', parts.agent ?? about.agent],
        ['sender', about.sender ?? '—'],
        ['turns', String(about.turns)],
        ['messages', String(about.messages)],
        [
          'tokens',
          `${exact(about.input_tokens)} in` +
            `${about.cached_input_tokens ? ` (${exact(about.cached_input_tokens)} cached)` : ''}` +
            ` / ${exact(about.output_tokens)} out`,
        ],
        [
          'cost',
          about.model_calls
            ? costTag(about.model_calls, about.cost_usd, about.unpriced_calls, about.unreported_calls)
            : '—',
        ],
        ['first active', h('span', { title: stamp(about.first_at) }, ago(about.first_at))],
        ['last active', h('span', { title: stamp(about.last_at) }, ago(about.last_at))],
      ],
      'session-facts',
    ),
    // Wraps between its parts (`|`), never inside a word.
    h(
      'p',
      { class: 'muted mono wrap small session-key', title: 'session key' },
      ...about.session_key.split('|').flatMap((part, i) => (i === 0 ? [part] : ['|', h('wbr'), part])),
    ),
    h('p', { id: 'session-message', class: 'muted' }),
    h(
      'div',
      { class: 'columns-2' },
      h(
        'section',
        {},
        h('h2', {}, 'Conversation'),
        detail.summary
          ? h('p', { class: 'summary' }, h('strong', {}, 'Summary of earlier turns: '), detail.summary)
          : null,
        detail.messages.length
          ? h('div', { class: 'chat-log static' }, ...transcriptGroups(detail))
          : h('p', { class: 'muted' }, 'The history is empty (cleared).'),
      ),
      h(
        'section',
        {},
        h('h2', {}, 'Turns'),
        h(
          'ol',
          { class: 'turn-list', id: 'session-turns' },
          ...detail.turns.map((t) =>
            h(
              'li',
              {},
              h('a', { href: `#/turn/${t.turn}`, class: 'turn-link' }, preview(t.text, 60) || t.turn),
              ' ',
              pill(t.outcome, toneOf(t.outcome === 'completed' ? 'done' : t.outcome)),
              h(
                'div',
                { class: 'muted small turn-facts' },
                `${stamp(t.at)} · ${t.ms === undefined ? 'running' : duration(t.ms)} · ` +
                  `${plural(t.model_calls, 'model call')} · ` +
                  tokensText(t.model_calls, t.input_tokens, t.output_tokens, t.unreported_calls),
                t.model_calls ? ' · cost ' : null,
                t.model_calls ? costTag(t.model_calls, t.cost_usd, t.unpriced_calls, t.unreported_calls) : null,
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

/** Every session by where it talks, searchable; a session opens to its conversation and turns. */
export const sessionsPage: Page = (root, id) => {
  if (id) {
    const clear = async (): Promise<void> => {
      const reply = await sendJson('POST', `/api/sessions/${id}/clear`);
      const message = document.getElementById('session-message');
      if (message)
        replace(
          message,
          h(
            'span',
            { class: reply.ok ? 'ok' : 'error' },
            reply.ok ? 'Cleared: the next message starts a fresh conversation.' : errorText(reply.body, reply.status),
          ),
        );
      if (reply.ok) void load();
    };
    const load = async (): Promise<void> => {
      const reply = await getJson<SessionDetail>(`/api/sessions/${id}`);
      replace(
        root,
        reply.ok
          ? detailView(reply.body, () => void clear())
          : h('p', { class: 'error' }, errorText(reply.body, reply.status)),
      );
    };
    replace(root, h('p', { class: 'muted' }, 'Loading…'));
    void load();
    return () => {};
  }
  const list = h('div', { id: 'sessions', class: 'session-list', 'aria-busy': 'true' });
  const search = h('input', {
    type: 'search',
    id: 'session-search',
    placeholder: 'Search by channel, chat, sender, agent or message',
    'aria-label': 'search sessions',
  });
  const note = h('p', { class: 'muted', id: 'sessions-count' });
  let rows: SessionRow[] = [];
  const draw = (): void => {
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    const shown = rows.filter((row) => words.every((w) => searchText(row).includes(w)));
    replace(
      note,
      words.length ? `${shown.length} of ${plural(rows.length, 'session')}` : plural(rows.length, 'session'),
    );
    replace(
      list,
      ...(shown.length
        ? shown.map(sessionItem)
        : [
            h(
              'p',
              { class: 'muted' },
              rows.length ? 'No session matches.' : 'No sessions yet: say something on the Chat page.',
            ),
          ]),
    );
  };
  search.addEventListener('input', draw);
  void getJson<{ sessions: SessionRow[] }>('/api/sessions').then((reply) => {
    busy(list, false);
    if (!reply.ok) return replace(list, h('p', { class: 'error' }, errorText(reply.body, reply.status)));
    rows = reply.body.sessions;
    draw();
  });
  replace(root, h('div', { class: 'page-head' }, h('h1', {}, 'Sessions')), search, note, list);
  return () => {};
};
