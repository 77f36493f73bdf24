import { errorText, getJson } from '../api.js';
import { busy, h, replace } from '../dom.js';
import { onLive } from '../live.js';
import type { Page } from './page.js';

type PluginRow = { name: string; version?: string; state: string; reason?: string; path: string };

/**
 * Plugin packages with their state (not enabled, disabled, ready, degraded, failed), the reason and the folder; redrawn
 * on `plugin.state`.
 */
export const pluginsPage: Page = (root) => {
  const body = h('div', { id: 'plugins', 'aria-busy': 'true' }, 'Loading…');
  const draw = async (): Promise<void> => {
    const reply = await getJson<{ plugins: PluginRow[] }>('/api/plugins');
    busy(body, false);
    if (!reply.ok) return replace(body, h('p', { class: 'error' }, errorText(reply.body, reply.status)));
    const rows = reply.body.plugins;
    if (rows.length === 0)
      return replace(
        body,
        h(
          'p',
          { class: 'muted' },
          'No plugins installed (or the gateway is stopped). ',
          h('code', {}, 'tern plugins install NAME'),
          ' installs one.',
        ),
      );
    replace(
      body,
      h(
        'table',
        {},
        h('thead', {}, h('tr', {}, ...['name', 'version', 'state', 'reason', 'path'].map((c) => h('th', {}, c)))),
        h(
          'tbody',
          {},
          ...rows.map((row) =>
            h(
              'tr',
              { 'data-plugin': row.name },
              h('td', {}, row.name),
              h('td', {}, row.version ?? ''),
              h('td', { class: `plugin-state ${row.state.replace(' ', '-')}` }, row.state),
              h('td', {}, row.reason ?? ''),
              h('td', {}, row.path),
            ),
          ),
        ),
      ),
    );
  };
  void draw();
  const stop = onLive((event) => {
    if (event.type === 'plugin.state' || event.type === 'gateway.started') void draw();
  });
  replace(
    root,
    h('h1', {}, 'Plugins'),
    h(
      'p',
      { class: 'muted' },
      'Plugins run outside the workspace sandbox. A running gateway loads them when it starts.',
    ),
    body,
  );
  return stop;
};
