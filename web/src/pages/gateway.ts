import type { Envelope } from '../../../bus/index.js';
import { errorText, getJson, sendJson } from '../api.js';
import { pill, toneOf } from '../components/ids.js';
import { busy, h, replace } from '../dom.js';
import { ago, clock, stamp, stateLabel } from '../format.js';
import { onGateway, onLive } from '../live.js';
import type { Actor, GatewayStatus } from '../../../bus/api-shapes.js';
import type { Page } from './page.js';

type Action = 'start' | 'stop' | 'restart';

/** Which buttons make sense in each state; while it starts or stops, none. */
const ENABLED: Record<GatewayStatus['state'], Action[]> = {
  running: ['stop', 'restart'],
  stopped: ['start'],
  starting: [],
  stopping: [],
};
const TONES: Record<GatewayStatus['state'], 'ok' | 'off' | 'busy'> = {
  running: 'ok',
  stopped: 'off',
  starting: 'busy',
  stopping: 'busy',
};

function channelRows(actors: Actor[]): HTMLElement {
  const channels = actors.filter((a) => a.machine === 'channel').sort((a, b) => a.actor.localeCompare(b.actor));
  if (channels.length === 0) return h('p', { class: 'muted' }, 'No channel has started.');
  return h(
    'ul',
    { class: 'channel-list', id: 'gateway-channels' },
    ...channels.map((c) =>
      h(
        'li',
        { 'data-channel': c.actor.slice('channel:'.length) },
        h(
          'div',
          { class: 'channel-top' },
          h('strong', {}, c.actor.slice('channel:'.length)),
          pill(stateLabel(c.state), toneOf(c.state)),
          h('span', { class: 'muted', title: stamp(c.at) }, `since ${ago(c.at)}`),
        ),
        c.reason && c.state === 'failed' ? h('p', { class: 'reason bad' }, c.reason) : null,
      ),
    ),
  );
}

/** The gateway's state with the actions it allows now, the progress of one underway, and its channels. */
export const gatewayPage: Page = (root) => {
  const state = h('div', { id: 'gateway-status', class: 'gateway-state' });
  const buttons = Object.fromEntries(
    (['start', 'stop', 'restart'] as const).map((action) => [
      action,
      h(
        'button',
        {
          type: 'button',
          id: `gateway-${action}`,
          class: action === 'stop' ? 'danger' : action === 'restart' ? 'secondary' : '',
          onclick: () => void act(action),
        },
        action[0]?.toUpperCase() + action.slice(1),
      ),
    ]),
  ) as Record<Action, HTMLButtonElement>;
  const progress = h('ol', { id: 'gateway-progress', class: 'progress', hidden: true });
  const channels = h(
    'div',
    { id: 'gateway-channel-list', 'aria-busy': 'true' },
    h('p', { class: 'muted' }, 'Loading…'),
  );
  let current: GatewayStatus | undefined;

  const show = (status: GatewayStatus): void => {
    // The action's answer and the live socket may both tell of the same state, in either order: one line for it.
    const told = current?.state === status.state && current.since === status.since;
    current = status;
    replace(
      state,
      pill(status.state, TONES[status.state], { id: 'gateway-state' }),
      h('span', { class: 'muted', title: stamp(status.since) }, ` since ${clock(status.since)} (${ago(status.since)})`),
      status.state === 'stopped' && status.failure
        ? h('p', { class: 'reason bad', id: 'gateway-failure' }, `The last start failed: ${status.failure}`)
        : null,
    );
    for (const [action, button] of Object.entries(buttons))
      button.disabled = !ENABLED[status.state].includes(action as Action);
    if (!progress.hidden && !told) {
      progress.append(
        h(
          'li',
          { class: TONES[status.state] },
          stateLabel(status.state),
          h('span', { class: 'muted' }, ` ${clock(status.since)}`),
        ),
      );
    }
  };
  const act = async (action: Action): Promise<void> => {
    replace(progress, h('li', {}, `${action} requested`, h('span', { class: 'muted' }, ` ${clock(Date.now())}`)));
    progress.hidden = false;
    for (const button of Object.values(buttons)) button.disabled = true;
    const reply = await sendJson<GatewayStatus>('POST', `/api/gateway/${action}`);
    if (!reply.ok) progress.append(h('li', { class: 'bad' }, errorText(reply.body, reply.status)));
    else if (current?.state !== reply.body.state) show(reply.body);
  };
  const loadChannels = async (): Promise<void> => {
    const reply = await getJson<{ actors: Actor[] }>('/api/actors');
    busy(channels, false);
    replace(
      channels,
      reply.ok ? channelRows(reply.body.actors) : h('p', { class: 'error' }, errorText(reply.body, reply.status)),
    );
  };
  let pending: ReturnType<typeof setTimeout> | undefined;
  const stopLive = onLive((event: Envelope) => {
    if ((event.type === 'actor.transitioned' && event.data.machine === 'channel') || event.type === 'channel.failed') {
      clearTimeout(pending);
      pending = setTimeout(() => void loadChannels(), 150);
    }
  });
  const stopGateway = onGateway((status) => {
    show(status);
    void loadChannels();
  });
  replace(
    root,
    h('div', { class: 'page-head' }, h('h1', {}, 'Gateway')),
    h(
      'section',
      { class: 'card' },
      state,
      h('div', { class: 'actions' }, buttons.start, buttons.stop, buttons.restart),
      progress,
    ),
    h('section', { class: 'card' }, h('h2', {}, 'Channels'), channels),
  );
  return () => {
    stopLive();
    stopGateway();
    clearTimeout(pending);
  };
};
