import type { PluginRow } from './plugin-host.js';

/** `/list plugins`: one line per plugin, `name version: state (reason) — path`. */
export function pluginListText(rows: readonly PluginRow[]): string {
  if (rows.length === 0) return 'No plugins installed.';
  return rows
    .map(
      (row) =>
        `${row.name}${row.version ? ` ${row.version}` : ''}: ` +
        `${row.state}${row.reason ? ` (${row.reason})` : ''} — ${row.path}`,
    )
    .join('\n');
}
