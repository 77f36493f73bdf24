import { errorText, getJson } from '../api.js';
import { h, replace } from '../dom.js';
import type { Page } from './page.js';

const KINDS = ['models', 'tools', 'skills', 'mcp', 'cron'] as const;
const TITLES: Record<(typeof KINDS)[number], string> = {
  models: 'Models',
  tools: 'Tools',
  skills: 'Skills',
  mcp: 'MCP servers',
  cron: 'Scheduled jobs',
};

function cell(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function table(items: Array<Record<string, unknown>>): HTMLElement {
  const columns = [...new Set(items.flatMap((item) => Object.keys(item)))];
  if (items.length === 0) return h('p', { class: 'muted' }, 'none');
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      h('thead', {}, h('tr', {}, ...columns.map((c) => h('th', {}, c)))),
      h('tbody', {}, ...items.map((item) => h('tr', {}, ...columns.map((c) => h('td', {}, cell(item[c])))))),
    ),
  );
}

/** Models, tools, skills, MCP servers and cron, each as a table. */
export const inventoryPage: Page = (root) => {
  const sections = KINDS.map((kind) => {
    const body = h('div', { id: `inventory-${kind}` }, h('p', { class: 'muted' }, 'Loading…'));
    void getJson<Record<string, Array<Record<string, unknown>>>>(`/api/${kind}`).then((reply) =>
      replace(
        body,
        reply.ok ? table(reply.body[kind] ?? []) : h('p', { class: 'error' }, errorText(reply.body, reply.status)),
      ),
    );
    return h('section', { class: 'card' }, h('h2', {}, TITLES[kind]), body);
  });
  replace(root, h('div', { class: 'page-head' }, h('h1', {}, 'Status')), ...sections);
  return () => {};
};
