import type { Envelope } from '../../../bus/index.js';
import { getJson } from '../api.js';
import { h, replace, time } from '../dom.js';
import { onLive } from '../live.js';
import type { Page } from './page.js';

type ActorRow = { actor: string; machine: string; state: string; last_event: string; at: number; stopped: boolean };
type ChartNode = { key: string; initial?: string; final: boolean; states: ChartNode[]; on: string[] };
type ActorDetail = ActorRow & { chart: ChartNode | null; history: Array<{ from?: string; to: string; event: string; at: number; seq: number }> };

/** Events after which the list is read again: a stop is not a transition, so the row is re-read. */
const REFRESHING: ReadonlySet<string> = new Set(['actor.stopped']);

/** `calling_model` lights `calling_model`; `showing.message_updated` lights both levels. */
function drawChart(node: ChartNode, active: string[], depth = 0): HTMLElement {
  const lit = depth > 0 && active[depth - 1] === node.key;
  const children = node.states.map((child) => drawChart(child, lit || depth === 0 ? active : [], depth + 1));
  return h('div', { class: `state${lit ? ' active' : ''}${node.final ? ' final' : ''}`, 'data-state': node.key },
    h('span', { class: 'state-name' }, node.key, node.initial ? h('small', {}, ` (starts at ${node.initial})`) : null),
    node.on.length ? h('small', { class: 'muted' }, ` on: ${node.on.join(', ')}`) : null,
    children.length ? h('div', { class: 'substates' }, ...children) : null);
}

/** Every live actor with its machine and state, updated over `/api/live`; one opens to its state chart. */
export const machinesPage: Page = (root, param) => {
  const table = h('tbody', { id: 'actors' });
  const detail = h('section', { id: 'actor-detail' });
  const rows = new Map<string, ActorRow>();
  const drawRows = (): void =>
    replace(table, ...[...rows.values()].sort((a, b) => b.at - a.at).map((row) =>
      h('tr', { 'data-actor': row.actor },
        h('td', {}, h('a', { href: `#/machines/${row.actor}` }, row.actor)),
        h('td', {}, row.machine), h('td', { class: 'actor-state' }, row.stopped ? `${row.state} (stopped)` : row.state),
        h('td', {}, row.last_event), h('td', {}, time(row.at)))));
  const openDetail = async (actor: string): Promise<void> => {
    const reply = await getJson<ActorDetail>(`/api/actors/${actor}`);
    if (!reply.ok) return replace(detail, h('p', { class: 'error' }, `no live actor ${actor}`));
    const d = reply.body;
    replace(detail, h('h2', {}, `${d.actor} — ${d.machine}`), h('p', {}, 'state: ', h('strong', { id: 'detail-state' }, d.state)),
      d.chart ? drawChart(d.chart, d.state.split('.')) : null,
      h('h3', {}, 'Events that moved it'),
      h('ol', { id: 'detail-history' }, ...d.history.map((m) => h('li', {}, `#${m.seq} ${m.event}: ${m.from ?? '∅'} → ${m.to}`))));
  };
  const gateway = h('p', { id: 'gateway-state', class: 'muted' });
  const refresh = (): void => void getJson<{ gateway: { state: string }; actors: ActorRow[] }>('/api/actors').then((reply) => {
    for (const row of reply.body.actors ?? []) rows.set(row.actor, row);
    replace(gateway, `gateway: ${reply.body.gateway?.state ?? 'unknown'}`);
    drawRows();
  });
  const stop = onLive((event: Envelope) => {
    if (event.type === 'actor.transitioned') {
      rows.set(event.data.actor, { actor: event.data.actor, machine: event.data.machine, state: event.data.to, last_event: event.data.event, at: event.at, stopped: false });
      drawRows();
    } else if (REFRESHING.has(event.type)) refresh();
    if (param && (event.type === 'actor.transitioned' ? event.data.actor === param : REFRESHING.has(event.type))) void openDetail(param);
  });
  refresh();
  if (param) void openDetail(param);
  replace(root, h('h1', {}, 'Machines'), gateway,
    h('table', {}, h('thead', {}, h('tr', {}, h('th', {}, 'actor'), h('th', {}, 'machine'), h('th', {}, 'state'), h('th', {}, 'last event'), h('th', {}, 'at'))), table),
    detail);
  return stop;
};
