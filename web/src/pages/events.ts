import type { Envelope } from '../../../bus/index.js';
import { errorText, getJson } from '../api.js';
import { eventRow } from '../components/event-row.js';
import { VirtualList } from '../components/virtual-list.js';
import { h, replace } from '../dom.js';
import { onLive } from '../live.js';
import type { Page } from './page.js';

const FILTERS = ['session', 'turn', 'type'] as const;
const PAGE = 200;
const TYPE_HINTS = [
  'turn.*',
  'provider.*',
  'tool.*',
  'message.*',
  'actor.*',
  'turn.*,tool.*',
  'channel.*',
  'gateway.*',
];

/**
 * The event log, newest first, as a virtualised list (only the rows in view are in the page): filters by
 * session, turn, type and time; each row opens to the whole event; older events load as you scroll; with
 * Follow on, new events matching the filters join at the top as they happen.
 */
export const eventsPage: Page = (root) => {
  const inputs = Object.fromEntries(
    FILTERS.map((name) => [
      name,
      h('input', {
        name,
        id: `filter-${name}`,
        placeholder: name === 'type' ? 'type, e.g. tool.*' : name,
        ...(name === 'type' ? { list: 'type-hints' } : {}),
      }),
    ]),
  );
  const since = h('input', { type: 'datetime-local', id: 'filter-since', name: 'since', 'aria-label': 'since' });
  const until = h('input', { type: 'datetime-local', id: 'filter-until', name: 'until', 'aria-label': 'until' });
  const follow = h('input', { type: 'checkbox', id: 'filter-follow', checked: true });
  const message = h('p', { id: 'events-message', class: 'muted' });
  const opened = new Set<number>();
  let loadingOlder = false;
  let exhausted = false;
  const list = new VirtualList<Envelope>(
    (e) => String(e.seq),
    (event, resized) =>
      eventRow(
        event,
        (open) => {
          if (open) opened.add(event.seq);
          else opened.delete(event.seq);
          resized();
        },
        opened.has(event.seq),
      ),
    () => void older(),
  );
  list.element.id = 'events';

  const query = (extra: Record<string, string>): string => {
    const params = new URLSearchParams(extra);
    for (const name of FILTERS) if (inputs[name]?.value.trim()) params.set(name, inputs[name].value.trim());
    if (since.value) params.set('since', String(new Date(since.value).getTime()));
    if (until.value) params.set('until', String(new Date(until.value).getTime()));
    return params.toString();
  };
  const say = (): void =>
    replace(
      message,
      `${list.length} events, newest first${exhausted ? ' (all)' : ''}${follow.checked ? ' · following' : ''}`,
    );
  const load = async (): Promise<void> => {
    exhausted = false;
    const reply = await getJson<{ events: Envelope[] }>(`/api/events?${query({ limit: String(PAGE) })}`);
    if (!reply.ok) return replace(message, h('span', { class: 'error' }, errorText(reply.body, reply.status)));
    exhausted = reply.body.events.length < PAGE;
    list.set(reply.body.events);
    say();
  };
  const older = async (): Promise<void> => {
    const oldest = list.at(list.length - 1);
    if (loadingOlder || exhausted || !oldest) return;
    loadingOlder = true;
    const reply = await getJson<{ events: Envelope[] }>(
      `/api/events?${query({ limit: String(PAGE), before: String(oldest.seq) })}`,
    );
    loadingOlder = false;
    if (!reply.ok) return;
    exhausted = reply.body.events.length < PAGE;
    list.append(reply.body.events);
    say();
  };
  let pending: ReturnType<typeof setTimeout> | undefined;
  const newer = async (): Promise<void> => {
    const newest = list.at(0);
    const reply = await getJson<{ events: Envelope[] }>(
      `/api/events?${query({ limit: '1000', order: 'asc', ...(newest ? { after: String(newest.seq) } : {}) })}`,
    );
    if (!reply.ok) return;
    const known = list.at(0)?.seq ?? 0;
    list.prepend(reply.body.events.filter((e) => e.seq > known).reverse());
    say();
  };
  // Events come in bursts (a turn is dozens): one read of the new ones per burst.
  const stopLive = onLive(() => {
    if (!follow.checked || until.value) return;
    clearTimeout(pending);
    pending = setTimeout(() => void newer(), 250);
  });
  follow.addEventListener('change', say);
  const form = h(
    'form',
    {
      class: 'filters',
      onsubmit: (event) => {
        event.preventDefault();
        void load();
      },
    },
    ...FILTERS.map((name) => inputs[name]),
    h('label', { class: 'date-field' }, h('span', {}, 'From'), since),
    h('label', { class: 'date-field' }, h('span', {}, 'To'), until),
    h('label', { class: 'check' }, follow, 'Follow'),
    h('button', { type: 'submit' }, 'Filter'),
    h('datalist', { id: 'type-hints' }, ...TYPE_HINTS.map((t) => h('option', { value: t }))),
  );
  replace(root, h('div', { class: 'page-head' }, h('h1', {}, 'Event log')), form, message, list.element);
  void load();
  return () => {
    stopLive();
    clearTimeout(pending);
    list.dispose();
  };
};
