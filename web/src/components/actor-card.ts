import { h, replace } from '../dom.js';
import {
  ago,
  channelName,
  clock,
  eventLabel,
  preview,
  sessionParts,
  sessionTitle,
  stamp,
  stateLabel,
} from '../format.js';
import type { Actor, ChartNode } from '../../../bus/api-shapes.js';
import { anyStateMoves, drawChart, fire, light } from './chart.js';
import { zoomable } from './chart-view.js';
import { idChip, pill, toneOf } from './ids.js';

const KINDS: Record<string, string> = {
  gateway: 'Gateway',
  channel: 'Channel',
  agent: 'Agent',
  session: 'Session',
  turn: 'Turn',
  heartbeat: 'Heartbeat',
  cron: 'Cron job',
  mcp_server: 'MCP server',
  subagent: 'Subagent',
};

/** The id after `machine:`, e.g. the session id of `session:sk_v1_…`. */
const ownId = (actor: Actor): string => actor.actor.slice(actor.actor.indexOf(':') + 1);

/** What a person calls the actor: a session by where it talks, a turn by the message that started it. */
export function actorName(actor: Actor): string {
  if (actor.machine === 'session' && actor.session_key) return sessionTitle(sessionParts(actor.session_key));
  if ((actor.machine === 'turn' || actor.machine === 'subagent') && actor.text) return `“${preview(actor.text, 60)}”`;
  if (!actor.actor.includes(':')) return actor.actor;
  // The dashboard's own chat is the channel `pico` to the gateway: people know it as the web chat.
  return actor.machine === 'channel' ? channelName(ownId(actor)) : ownId(actor);
}

export const actorKind = (actor: Actor): string => KINDS[actor.machine] ?? actor.machine.replace(/_/g, ' ');

function links(actor: Actor): HTMLElement | null {
  const items = [
    actor.turn ? h('a', { href: `#/turn/${actor.turn}` }, 'turn view') : null,
    actor.session ? h('a', { href: `#/sessions/${actor.session}` }, 'session') : null,
    h('a', { href: `#/machines/${actor.key}` }, 'history'),
  ];
  return h('nav', { class: 'card-links' }, ...items);
}

function context(actor: Actor): HTMLElement | null {
  const entries = Object.entries(actor.context ?? {});
  if (entries.length === 0) return null;
  return h('span', { class: 'context' }, entries.map(([key, value]) => `${key} ${String(value)}`).join(' · '));
}

function footer(actor: Actor): HTMLElement {
  const move = actor.from ? `${stateLabel(actor.from)} → ${stateLabel(actor.state)}` : stateLabel(actor.state);
  return h(
    'div',
    { class: 'card-foot' },
    h(
      'span',
      { class: 'last-move', title: `${stamp(actor.at)} on ${actor.last_event}` },
      `${move} on ${eventLabel(actor.last_event)}`,
    ),
    h('span', { class: 'muted when', 'data-at': actor.at, title: stamp(actor.at) }, ago(actor.at)),
  );
}

function head(actor: Actor): HTMLElement {
  const state =
    actor.stopped && actor.machine !== 'turn' ? `${stateLabel(actor.state)}, ended` : stateLabel(actor.state);
  return h(
    'header',
    { class: 'card-head' },
    h(
      'div',
      { class: 'card-title' },
      h('span', { class: 'kind' }, actorKind(actor)),
      h('span', { class: 'name', title: actor.actor }, actorName(actor)),
    ),
    pill(state, toneOf(actor.state), { class: `pill ${toneOf(actor.state)} actor-state` }),
  );
}

function meta(actor: Actor): HTMLElement {
  const id = actor.actor.includes(':') ? ownId(actor) : undefined;
  return h(
    'div',
    { class: 'card-sub' },
    id ? idChip(id) : null,
    h('span', { class: 'muted', title: stamp(actor.at) }, `since ${clock(actor.at)}`),
    context(actor),
  );
}

function reason(actor: Actor): HTMLElement | null {
  // A turn that completed says nothing a done state does not.
  if (!actor.reason || actor.reason === 'completed') return null;
  const failed = toneOf(actor.state) === 'bad';
  return h(
    'p',
    { class: failed ? 'reason bad' : 'reason' },
    failed ? `Failed: ${actor.reason}` : `Ended: ${actor.reason}`,
  );
}

/** One actor: what it is, its state, why it failed, its chart with the state lit, and its last move. */
export function actorCard(actor: Actor, chart: ChartNode | undefined): HTMLElement {
  const drawn = chart ? drawChart(actor.machine, chart, actor.state, actor.from) : null;
  const moves = drawn ? anyStateMoves(actor.machine) : [];
  const node = h(
    'article',
    {
      class: `card actor${actor.stopped ? ' ended' : ''}`,
      'data-actor': actor.actor,
      'data-key': actor.key,
      'data-machine': actor.machine,
      'data-state': actor.state,
    },
    head(actor),
    meta(actor),
    h('div', { class: 'reason-slot' }, reason(actor)),
    drawn ? h('div', { class: 'chart-wrap' }, zoomable(drawn)) : null,
    moves.length ? h('p', { class: 'any-state muted' }, `from any state: ${moves.join(' · ')}`) : null,
    footer(actor),
    links(actor),
  );
  return node;
}

/** Brings a card up to date; a move it did not show yet is animated. */
export function updateCard(node: HTMLElement, actor: Actor, animate: boolean): void {
  const chart = node.querySelector<SVGSVGElement>('svg.chart');
  const moved = node.dataset.state !== actor.state;
  node.dataset.state = actor.state;
  node.classList.toggle('ended', actor.stopped);
  node.querySelector('.card-head')?.replaceWith(head(actor));
  node.querySelector('.card-sub')?.replaceWith(meta(actor));
  node.querySelector('.card-foot')?.replaceWith(footer(actor));
  const slot = node.querySelector('.reason-slot');
  if (slot) replace(slot, reason(actor));
  if (chart && moved) (animate ? fire : light)(chart, actor.state, actor.from);
}
