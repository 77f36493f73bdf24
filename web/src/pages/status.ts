import type { LastError, StatusReply } from '../../../bus/api-shapes.js';
import { errorText, getJson } from '../api.js';
import { busy, h, replace, type Child } from '../dom.js';
import { ago, channelName, plural, preview, stamp } from '../format.js';
import type { Page } from './page.js';

type Tone = 'ok' | 'bad' | 'busy' | 'idle' | 'off';

const STATE_TONES: Record<string, Tone> = {
  connected: 'ok',
  failed: 'bad',
  starting: 'busy',
  'not started': 'idle',
  stopped: 'off',
  off: 'off',
};

/** Channel kinds as their makers spell them; the web chat and others as `channelName` says. */
const KINDS: Record<string, string> = {
  telegram: 'Telegram',
  discord: 'Discord',
  slack: 'Slack',
  line: 'LINE',
  whatsapp: 'WhatsApp',
  matrix: 'Matrix',
  feishu: 'Feishu',
  dingtalk: 'DingTalk',
  wecom: 'WeCom',
  qq: 'QQ',
  onebot: 'OneBot',
  pico_client: 'Pico client',
};

const pill = (text: string, tone: Tone): HTMLElement => h('span', { class: `pill ${tone}` }, text);

/** A card: a title with its state, then facts as label and value; facts without a value are left out. */
function card(title: string, state: HTMLElement | null, facts: Array<[string, Child]>, extra?: Child): HTMLElement {
  const shown = facts.filter(([, value]) => value !== undefined && value !== null && value !== '');
  return h(
    'article',
    { class: 'card status-card' },
    h('div', { class: 'status-card-head' }, h('h3', {}, title), state),
    h('dl', {}, ...shown.flatMap(([label, value]) => [h('dt', {}, label), h('dd', {}, value)])),
    extra,
  );
}

/** A URL or command as code that may wrap after each `/`, never inside a word. */
function path(text: string): HTMLElement {
  const parts = text.split(/(?<=\/)/);
  return h('code', {}, ...parts.flatMap((part, index) => (index === 0 ? [part] : [h('wbr'), part])));
}

function when(at: number): HTMLElement {
  return h('time', { datetime: new Date(at).toISOString(), title: stamp(at) }, ago(at));
}

function lastError(error: LastError | undefined): Child {
  return error ? h('span', { class: 'error' }, when(error.at), ': ', error.message) : null;
}

function cards(id: string, items: HTMLElement[], empty: string): HTMLElement {
  return h('div', { id, class: 'status-cards' }, ...(items.length ? items : [h('p', { class: 'muted' }, empty)]));
}

function models(status: StatusReply): HTMLElement {
  return cards(
    'status-models',
    status.models.map((m) =>
      card(m.name, m.enabled ? null : pill('off', 'off'), [
        ['Provider', m.provider],
        ['Model', h('code', {}, m.model)],
        ['Keys', m.keys === 0 ? 'none' : `${plural(m.keys, 'key')} (hidden)`],
        ['Proxy', m.proxy],
        ['Last error', lastError(m.last_error) ?? 'none'],
      ]),
    ),
    'No model is configured: add one on the Config page.',
  );
}

function channels(status: StatusReply): HTMLElement {
  return cards(
    'status-channels',
    status.channels.map((c) =>
      card(c.name, pill(c.state, STATE_TONES[c.state] ?? 'off'), [
        ['Kind', KINDS[c.type] ?? channelName(c.type)],
        [
          'Last message',
          c.last_message
            ? h('span', {}, when(c.last_message.at), ` from ${c.last_message.sender}: ${preview(c.last_message.text)}`)
            : 'none yet',
        ],
        ['Last error', lastError(c.last_error) ?? 'none'],
        ['Webhook URL', c.webhook_url ? path(c.webhook_url) : undefined],
      ]),
    ),
    'No channel is configured: add one on the Config page.',
  );
}

function tools(status: StatusReply): HTMLElement {
  if (status.tools.length === 0)
    return h('p', { id: 'status-tools', class: 'muted' }, 'The tools are listed while the gateway runs.');
  return h(
    'div',
    { id: 'status-tools', class: 'status-cards' },
    ...status.tools.map((group) =>
      h(
        'article',
        { class: 'card status-card', 'data-group': group.group },
        h(
          'div',
          { class: 'status-card-head' },
          h('h3', {}, group.group),
          h('span', { class: 'count' }, group.tools.length),
        ),
        h(
          'ul',
          { class: 'tool-list' },
          ...group.tools.map((tool) =>
            h(
              'li',
              {},
              h('code', {}, tool.name),
              tool.limits.length
                ? h('div', { class: 'chips' }, ...tool.limits.map((l) => h('span', { class: 'chip' }, l)))
                : null,
              h('p', { class: 'hint' }, preview(tool.description, 140)),
            ),
          ),
        ),
      ),
    ),
  );
}

function mcp(status: StatusReply): HTMLElement {
  return cards(
    'status-mcp',
    status.mcp.map((s) =>
      card(s.name, pill(s.state, STATE_TONES[s.state] ?? 'off'), [
        ['Transport', s.transport],
        ['Runs', path(s.target)],
        ['Tools', s.tools === undefined ? undefined : String(s.tools)],
        ['Last error', lastError(s.last_error) ?? 'none'],
      ]),
    ),
    'No MCP server is configured.',
  );
}

function cron(status: StatusReply): HTMLElement {
  return cards(
    'inventory-cron',
    status.cron.map((job) =>
      card(job.name, pill(job.enabled ? 'on' : 'paused', job.enabled ? 'ok' : 'off'), [
        ['ID', h('code', {}, job.id)],
        ['Schedule', job.schedule],
        ['Does', job.kind],
        ['Next run', job.next_run || 'not planned'],
        ['Last run', job.last_outcome],
      ]),
    ),
    'No job is scheduled.',
  );
}

const SECTIONS: Array<[string, (status: StatusReply) => HTMLElement]> = [
  ['Models', models],
  ['Channels', channels],
  ['Tools', tools],
  ['MCP servers', mcp],
  ['Scheduled jobs', cron],
];

/** Models, channels, tools, MCP servers and scheduled jobs as cards: what each is, its state, its last problem. */
export const inventoryPage: Page = (root) => {
  const body = h('div', { class: 'status-page', 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Loading…'));
  void getJson<StatusReply>('/api/status').then((reply) => {
    busy(body, false);
    if (!reply.ok) return replace(body, h('p', { class: 'error' }, errorText(reply.body, reply.status)));
    replace(body, ...SECTIONS.flatMap(([title, draw]) => [h('h2', {}, title), draw(reply.body)]));
  });
  replace(root, h('div', { class: 'page-head' }, h('h1', {}, 'Status')), body);
  return () => {};
};
