import { errorText, getJson, sendJson } from '../api.js';
import { h, replace, time } from '../dom.js';
import type { Page } from './page.js';

const LEVELS = ['debug', 'info', 'warn', 'error', 'fatal'];
const KINDS = ['models', 'tools', 'skills', 'mcp', 'cron'] as const;

function cell(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function table(items: Array<Record<string, unknown>>): HTMLElement {
  const columns = [...new Set(items.flatMap((item) => Object.keys(item)))];
  if (items.length === 0) return h('p', { class: 'muted' }, 'none');
  return h('table', {}, h('thead', {}, h('tr', {}, ...columns.map((c) => h('th', {}, c)))),
    h('tbody', {}, ...items.map((item) => h('tr', {}, ...columns.map((c) => h('td', {}, cell(item[c])))))));
}

/** Models, tools, skills, MCP servers and cron, each as a table. */
export const inventoryPage: Page = (root) => {
  const sections = KINDS.map((kind) => {
    const body = h('div', { id: `inventory-${kind}` }, 'Loading…');
    void getJson<Record<string, Array<Record<string, unknown>>>>(`/api/${kind}`).then((reply) =>
      replace(body, reply.ok ? table(reply.body[kind] ?? []) : errorText(reply.body, reply.status)));
    return h('section', {}, h('h2', {}, kind), body);
  });
  replace(root, h('h1', {}, 'Status'), ...sections);
  return () => {};
};

/** The gateway's state with start, stop and restart. */
export const gatewayPage: Page = (root) => {
  const state = h('p', { id: 'gateway-status' });
  const show = (body: { state?: string; since?: number; failure?: string }) =>
    replace(state, `${body.state ?? 'unknown'} since ${time(body.since ?? 0)}`, body.failure ? h('span', { class: 'error' }, ` — ${body.failure}`) : null);
  const act = async (action: string): Promise<void> => {
    replace(state, `${action}…`);
    const reply = await sendJson<{ state: string; since: number }>('POST', `/api/gateway/${action}`);
    if (reply.ok) show(reply.body);
    else replace(state, errorText(reply.body, reply.status));
  };
  void getJson<{ state: string; since: number }>('/api/gateway/status').then((reply) => show(reply.body));
  replace(root, h('h1', {}, 'Gateway'), state,
    ...['start', 'stop', 'restart'].map((action) => h('button', { type: 'button', id: `gateway-${action}`, onclick: () => void act(action) }, action)));
  return () => {};
};

/** The gateway log's tail, filtered by level. */
export const logsPage: Page = (root) => {
  const level = h('select', { id: 'log-level' }, h('option', { value: '' }, 'all levels'), ...LEVELS.map((l) => h('option', { value: l }, `${l} and up`)));
  const lines = h('pre', { id: 'log-lines', class: 'logs' });
  const load = async (): Promise<void> => {
    const reply = await getJson<{ lines: string[] }>(`/api/logs${level.value ? `?level=${level.value}` : ''}`);
    replace(lines, reply.ok ? (reply.body.lines.join('\n') || 'the log is empty') : errorText(reply.body, reply.status));
  };
  level.addEventListener('change', () => void load());
  void load();
  const timer = setInterval(() => void load(), 3000);
  replace(root, h('h1', {}, 'Logs'), level, lines);
  return () => clearInterval(timer);
};
