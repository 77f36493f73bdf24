import type { Envelope } from '../../../bus/index.js';
import { errorText, getJson } from '../api.js';
import { actorCard, actorKind, actorName, updateCard } from '../components/actor-card.js';
import { anyStateMoves, chartDefs, drawChart } from '../components/chart.js';
import { idChip, toneOf } from '../components/ids.js';
import { busy, h, replace } from '../dom.js';
import { eventLabel, plural, stamp, stateLabel } from '../format.js';
import { onLive } from '../live.js';
import { finishedWork, type Actor, type ActorDetail, type ChartNode } from '../../../bus/api-shapes.js';
import { finishedTurns } from '../components/turn-list.js';
import { zoomable } from '../components/chart-view.js';
import type { Page } from './page.js';

/** Turns shown per session; older ones are listed as links. */
const TURNS_SHOWN = 3;
/** Events after which the board is read again (new actors, reasons, keys); moves themselves apply at once. */
const REREAD = new Set([
  'actor.stopped',
  'channel.failed',
  'mcp.failed',
  'turn.started',
  'turn.failed',
  'gateway.started',
  'subagent.spawned',
  'subagent.ended',
  'runtime.started',
  'cluster.member.left',
]);

/** Events after which the list of finished turns is read again. */
const ENDINGS = new Set(['turn.completed', 'turn.failed', 'turn.stopped', 'turn.aborted']);

/** Gateway-level actors in this order: the gateway, its channels, then the services it runs. */
const RANK: Record<string, number> = { gateway: 0, channel: 1, heartbeat: 2, cron: 3, mcp_server: 4 };

const rank = (a: Actor): number => RANK[a.machine] ?? 5;
const byRank = (a: Actor, b: Actor): number => rank(a) - rank(b) || a.actor.localeCompare(b.actor);
const byRecent = (a: Actor, b: Actor): number => b.at - a.at;

type Tree = { cards: Map<string, HTMLElement>; charts: Record<string, ChartNode> };

function cardOf(tree: Tree, actor: Actor): HTMLElement {
  const known = tree.cards.get(actor.key);
  if (known) {
    updateCard(known, actor, false);
    return known;
  }
  const card = actorCard(actor, tree.charts[actor.machine]);
  tree.cards.set(actor.key, card);
  return card;
}

/** The board's key of a moved actor: in a cluster its stream qualifies it (`ActorView.key`). */
const keyOf = (actor: string, stream: string | undefined): string => (stream ? `${actor}@${stream}` : actor);

/** A cluster's event stream as a heading names it: the channel account it runs, or the member's own. */
function streamTitle(stream: string, gateway: string | undefined): string {
  const what = stream.startsWith('TERN_CH_')
    ? `channel account ${stream.slice('TERN_CH_'.length)}`
    : stream.startsWith('TERN_GW_')
      ? 'the member itself'
      : stream;
  return `${gateway ?? 'a gateway'} · ${what}`;
}

/**
 * The board: one tree, or in a cluster (#27) one tree per gateway and stream it runs (a member's own services, each
 * channel account's channel, agents, sessions and turns), by gateway.
 */
function drawBoard(tree: Tree, actors: Actor[]): HTMLElement {
  if (!actors.some((a) => a.stream)) return drawTree(tree, actors);
  const streams = new Map<string, Actor[]>();
  for (const actor of actors) streams.set(actor.stream ?? '', [...(streams.get(actor.stream ?? '') ?? []), actor]);
  const gatewayOf = (group: Actor[]): string => group.find((a) => a.gateway)?.gateway ?? '';
  const groups = [...streams].sort(([a, x], [b, y]) => gatewayOf(x).localeCompare(gatewayOf(y)) || a.localeCompare(b));
  return h(
    'div',
    { class: 'cluster' },
    ...groups.map(([stream, group]) =>
      h(
        'section',
        { class: 'cluster-stream', 'data-stream': stream, 'data-gateway': gatewayOf(group) },
        h('h2', { class: 'cluster-head' }, streamTitle(stream, gatewayOf(group) || undefined)),
        drawTree(tree, group),
      ),
    ),
  );
}

/** Sessions drawn per agent: the most recent, and any with a turn running; the rest are on the Sessions page. */
const SESSIONS_SHOWN = 6;

/** The latest sessions (and any with a turn shown) as branches, and a link to the Sessions page for the others. */
function sessionBranches(tree: Tree, sessions: Actor[], children: Map<string, Actor[]>): HTMLElement[] {
  const sorted = sessions.slice().sort(byRecent);
  const shown = sorted.filter((k, i) => i < SESSIONS_SHOWN || children.has(k.actor));
  const hidden = sorted.length - shown.length;
  return [
    ...shown.map((k) => branch(tree, k, children)),
    ...(hidden > 0
      ? [
          h(
            'a',
            { class: 'more-sessions muted', href: '#/sessions' },
            `${plural(hidden, 'more session')} on the Sessions page`,
          ),
        ]
      : []),
  ];
}

/** An actor with the actors under it; a child timeline or subagent hangs under its parent the same way. */
function branch(tree: Tree, actor: Actor, children: Map<string, Actor[]>): HTMLElement {
  const kids = (children.get(actor.actor) ?? []).slice().sort(byRecent);
  const turns = kids.filter((k) => k.machine === 'turn');
  // A turn whose subagents are still there stays in view however old it is.
  const shownTurns = turns.filter((t, i) => i < TURNS_SHOWN || children.has(t.actor));
  const others = kids.filter((k) => k.machine !== 'turn' && k.machine !== 'session');
  const branches = [
    ...sessionBranches(
      tree,
      kids.filter((k) => k.machine === 'session'),
      children,
    ),
    ...others.map((k) => branch(tree, k, children)),
  ];
  const sub =
    branches.length + shownTurns.length > 0
      ? h(
          'div',
          { class: 'children' },
          branches.length ? h('div', { class: 'branches' }, ...branches) : null,
          shownTurns.length ? h('div', { class: 'cards' }, ...shownTurns.map((k) => branch(tree, k, children))) : null,
        )
      : null;
  return h('div', { class: `branch ${actor.machine}` }, cardOf(tree, actor), sub);
}

/**
 * The gateway with its channels and services side by side; below, each agent with its sessions and each
 * session with its latest turns. An actor whose parent is not listed (it ended long ago) joins the top.
 */
function drawTree(tree: Tree, actors: Actor[]): HTMLElement {
  const ids = new Set(actors.map((a) => a.actor));
  const children = new Map<string, Actor[]>();
  const gatewayLevel: Actor[] = [];
  const agents: Actor[] = [];
  const loose: Actor[] = [];
  for (const actor of actors) {
    if (actor.parent && ids.has(actor.parent) && actor.parent !== 'gateway')
      children.set(actor.parent, [...(children.get(actor.parent) ?? []), actor]);
    else if (actor.machine === 'agent') agents.push(actor);
    // An agent that has not moved since the gateway started (it answers later) is not listed: its sessions still are.
    else if (actor.machine === 'session') loose.push(actor);
    else gatewayLevel.push(actor);
  }
  const channels = gatewayLevel.filter((a) => a.machine === 'channel').length;
  const heading = [
    channels ? plural(channels, 'channel') : null,
    gatewayLevel.length - channels - 1 > 0 ? plural(gatewayLevel.length - channels - 1, 'service') : null,
  ]
    .filter(Boolean)
    .join(', ');
  return h(
    'div',
    { class: 'tree' },
    h(
      'section',
      { class: 'group gateway-level' },
      h('h2', {}, 'Gateway', heading ? h('span', { class: 'muted' }, ` · ${heading}`) : null),
      h('div', { class: 'cards' }, ...gatewayLevel.sort(byRank).map((a) => cardOf(tree, a))),
    ),
    agents.length + loose.length
      ? h(
          'section',
          { class: 'group agents' },
          h('h2', {}, 'Agents, their sessions and turns'),
          h(
            'div',
            { class: 'branches' },
            ...agents.sort((a, b) => a.actor.localeCompare(b.actor)).map((a) => branch(tree, a, children)),
            ...sessionBranches(tree, loose, children),
          ),
        )
      : null,
  );
}

function detailView(detail: ActorDetail): HTMLElement {
  const chart = detail.chart
    ? drawChart(detail.machine, detail.chart, detail.state, detail.history.at(-1)?.from)
    : null;
  const moves = chart ? anyStateMoves(detail.machine) : [];
  return h(
    'section',
    { class: 'card detail', id: 'actor-detail', 'data-actor': detail.actor, 'data-key': detail.key },
    h(
      'header',
      { class: 'card-head' },
      h(
        'div',
        { class: 'card-title' },
        h('span', { class: 'kind' }, actorKind(detail)),
        h('span', { class: 'name' }, actorName(detail)),
      ),
      h('span', { class: `pill ${toneOf(detail.state)}`, id: 'detail-state' }, stateLabel(detail.state)),
    ),
    h(
      'div',
      { class: 'card-sub' },
      idChip(detail.actor),
      detail.gateway ? h('span', { class: 'muted detail-gateway' }, `on ${detail.gateway}`) : null,
      h('a', { href: '#/machines' }, 'all machines'),
    ),
    detail.reason && detail.reason !== 'completed'
      ? h('p', { class: `reason${toneOf(detail.state) === 'bad' ? ' bad' : ''}` }, detail.reason)
      : null,
    chart ? h('div', { class: 'chart-wrap large' }, zoomable(chart)) : null,
    moves.length ? h('p', { class: 'any-state muted' }, `from any state: ${moves.join(' · ')}`) : null,
    h('h3', {}, 'Moves'),
    h(
      'ol',
      { id: 'detail-history', class: 'moves' },
      ...detail.history
        .slice()
        .reverse()
        .map((m) =>
          h(
            'li',
            {},
            h('span', { class: 'muted', title: stamp(m.at) }, stamp(m.at).slice(11)),
            ' ',
            m.from ? `${stateLabel(m.from)} → ` : '',
            h('strong', {}, stateLabel(m.to)),
            h('span', { class: 'muted' }, ` on ${eventLabel(m.event)} · #${m.seq}`),
          ),
        ),
    ),
  );
}

/**
 * Every live actor as a card with its state chart, grouped gateway → channels, services, agents → sessions →
 * turns; each move over `/api/live` lights the new state and animates the arrow that led there.
 */
export const machinesPage: Page = (root, param) => {
  const tree: Tree = { cards: new Map(), charts: {} };
  const board = h('div', { id: 'machines-board', 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Loading…'));
  const detail = h('div', { id: 'machines-detail' });
  const actors = new Map<string, Actor>();
  let reread: ReturnType<typeof setTimeout> | undefined;

  const finished = finishedTurns();
  /** Turns this page saw running: once they end they stay as cards (the latest few per session) until it closes. */
  const watched = new Set<string>();
  const draw = (): void => replace(board, drawBoard(tree, [...actors.values()]));
  const refresh = async (): Promise<void> => {
    const reply = await getJson<{ actors: Actor[] }>('/api/actors?live=true');
    busy(board, false);
    if (!reply.ok) return replace(board, h('p', { class: 'error' }, errorText(reply.body, reply.status)));
    const kept = [...actors.values()].filter((a) => watched.has(a.key) && finishedWork(a));
    actors.clear();
    for (const actor of kept) actors.set(actor.key, actor);
    for (const actor of reply.body.actors) {
      actors.set(actor.key, actor);
      if (!finishedWork(actor)) watched.add(actor.key);
    }
    draw();
  };
  const openDetail = async (key: string): Promise<void> => {
    // Actor keys are plain (`turn:t_…`, `channel:tg1@TERN_CH_tg1`), and the launcher refuses percent-encoded paths.
    const reply = await getJson<ActorDetail>(`/api/actors/${key}`);
    replace(detail, reply.ok ? detailView(reply.body) : h('p', { class: 'error' }, `No live actor ${key}.`));
  };
  const rereadSoon = (): void => {
    clearTimeout(reread);
    reread = setTimeout(() => void refresh(), 150);
  };
  const stop = onLive((event: Envelope) => {
    if (event.type === 'actor.transitioned') {
      const key = keyOf(event.data.actor, event.stream);
      const known = actors.get(key);
      const next: Actor = {
        ...(known ?? {
          actor: event.data.actor,
          key,
          machine: event.data.machine,
          ...(event.stream ? { stream: event.stream } : {}),
          ...(event.gateway ? { gateway: event.gateway } : {}),
        }),
        state: event.data.to,
        last_event: event.data.event,
        at: event.at,
        stopped: false,
        ...(event.data.from ? { from: event.data.from } : {}),
      };
      actors.set(key, next);
      if (!finishedWork(next)) watched.add(key);
      const card = tree.cards.get(key);
      if (card) updateCard(card, next, true);
      else rereadSoon();
      if (param === key) void openDetail(param);
    } else if (REREAD.has(event.type)) rereadSoon();
    if (ENDINGS.has(event.type)) finished.reload();
  });
  replace(
    root,
    chartDefs(),
    h(
      'div',
      { class: 'page-head' },
      h('h1', {}, 'Machines'),
      h(
        'p',
        { class: 'muted legend' },
        h('span', { class: 'legend-current' }, 'current state'),
        ' ',
        h('span', { class: 'legend-last' }, 'last move'),
        ' · live',
      ),
    ),
    detail,
    board,
    finished.node,
  );
  void getJson<{ machines: Record<string, ChartNode> }>('/api/machines').then((reply) => {
    tree.charts = reply.ok ? reply.body.machines : {};
    void refresh();
    if (param) void openDetail(param);
  });
  return () => {
    stop();
    clearTimeout(reread);
  };
};
