import { errorText, getJson, sendJson } from '../api.js';
import { h, replace, time } from '../dom.js';
import { renderMarkdown } from '../markdown.js';
import type { Page } from './page.js';

type SessionSummary = { session: string; session_key: string; channel: string; turns: number; last_at: number; last_text: string };
type History = { summary: string | null; messages: Array<{ seq: number; message: { role: string; content: string } }> };

/** Every session with its history; a session can be cleared (`session.cleared`). */
export const sessionsPage: Page = (root, id) => {
  const list = h('tbody', { id: 'sessions' });
  const detail = h('section', { id: 'session-detail' });
  void getJson<{ sessions: SessionSummary[] }>('/api/sessions').then((reply) => {
    if (!reply.ok) return replace(detail, h('p', { class: 'error' }, errorText(reply.body, reply.status)));
    replace(list, ...reply.body.sessions.map((s) => h('tr', {},
      h('td', {}, h('a', { href: `#/sessions/${s.session}` }, s.session_key)), h('td', {}, s.channel), h('td', {}, s.turns), h('td', {}, time(s.last_at)), h('td', {}, s.last_text.slice(0, 80)))));
  });
  const clear = async (): Promise<void> => {
    const reply = await sendJson('POST', `/api/sessions/${id ?? ''}/clear`);
    replace(detail, h('p', { class: reply.ok ? 'ok' : 'error' }, reply.ok ? 'cleared' : errorText(reply.body, reply.status)));
  };
  if (id) {
    void getJson<History>(`/api/sessions/${id}`).then((reply) => {
      if (!reply.ok) return replace(detail, h('p', { class: 'error' }, errorText(reply.body, reply.status)));
      replace(detail, h('h2', {}, id), h('button', { type: 'button', id: 'session-clear', onclick: () => void clear() }, 'Clear history'),
        reply.body.summary ? h('p', { class: 'muted' }, reply.body.summary) : null,
        ...reply.body.messages.map((m) => h('div', { class: `bubble ${m.message.role}` }, renderMarkdown(m.message.content))));
    });
  }
  replace(root, h('h1', {}, 'Sessions'),
    h('table', {}, h('thead', {}, h('tr', {}, ...['session', 'channel', 'turns', 'last', 'last message'].map((t) => h('th', {}, t)))), list), detail);
  return () => {};
};
