import type { Envelope } from '../../../bus/index.js';
import { errorText, getJson } from '../api.js';
import { h, replace, time } from '../dom.js';
import type { Page } from './page.js';

const FILTERS = ['session', 'turn', 'type'] as const;

function summary(event: Envelope): string {
  const text = JSON.stringify(event.data);
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}

function row(event: Envelope): HTMLElement {
  return h('tr', {},
    h('td', {}, event.seq), h('td', {}, time(event.at)), h('td', {}, event.type),
    h('td', {}, event.session ? h('a', { href: `#/sessions/${event.session}` }, event.session.slice(0, 14)) : ''),
    h('td', {}, event.turn ? h('a', { href: `#/turn/${event.turn}`, class: 'turn-link' }, event.turn) : ''),
    h('td', { class: 'mono' }, summary(event)));
}

/** The event log with filters by session, turn, type and time; a turn opens its timeline. */
export const eventsPage: Page = (root) => {
  const inputs = Object.fromEntries(FILTERS.map((name) => [name, h('input', { name, id: `filter-${name}`, placeholder: name })]));
  const since = h('input', { type: 'datetime-local', id: 'filter-since', name: 'since' });
  const until = h('input', { type: 'datetime-local', id: 'filter-until', name: 'until' });
  const body = h('tbody', { id: 'events' });
  const message = h('p', { id: 'events-message', class: 'muted' });
  const load = async (): Promise<void> => {
    const query = new URLSearchParams();
    for (const name of FILTERS) if (inputs[name]?.value.trim()) query.set(name, inputs[name].value.trim());
    if (since.value) query.set('since', String(new Date(since.value).getTime()));
    if (until.value) query.set('until', String(new Date(until.value).getTime()));
    const reply = await getJson<{ events: Envelope[] }>(`/api/events?${query}`);
    if (!reply.ok) return replace(message, h('span', { class: 'error' }, errorText(reply.body, reply.status)));
    replace(message, `${reply.body.events.length} events, newest first`);
    replace(body, ...reply.body.events.map(row));
  };
  const form = h('form', { class: 'filters', onsubmit: (event) => (event.preventDefault(), void load()) },
    ...FILTERS.map((name) => inputs[name]), since, until, h('button', { type: 'submit' }, 'Filter'));
  replace(root, h('h1', {}, 'Event log'), form, message,
    h('table', {}, h('thead', {}, h('tr', {}, ...['seq', 'at', 'type', 'session', 'turn', 'data'].map((t) => h('th', {}, t)))), body));
  void load();
  return () => {};
};
