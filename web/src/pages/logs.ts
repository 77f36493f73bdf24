import { errorText, getJson } from '../api.js';
import { busy, h, replace } from '../dom.js';
import type { Page } from './page.js';

const LEVELS = ['debug', 'info', 'warn', 'error', 'fatal'];

/** A line's level is the word after its timestamp (`2026-… INFO message`). */
function line(text: string): HTMLElement {
  const level = (text.split(' ', 2)[1] ?? '').toLowerCase();
  return h('div', { class: `log-line ${LEVELS.includes(level) ? level : ''}` }, text);
}

/** The gateway log's tail, filtered by level, long lines wrapped, following as it grows. */
export const logsPage: Page = (root) => {
  const level = h(
    'select',
    { id: 'log-level', 'aria-label': 'level' },
    h('option', { value: '' }, 'all levels'),
    ...LEVELS.map((l) => h('option', { value: l }, `${l} and up`)),
  );
  const lines = h('div', { id: 'log-lines', class: 'logs', 'aria-busy': 'true' });
  const file = h('p', { class: 'muted mono wrap' });
  const load = async (): Promise<void> => {
    const atEnd = lines.scrollTop + lines.clientHeight >= lines.scrollHeight - 8;
    const reply = await getJson<{ file: string; lines: string[] }>(
      `/api/logs${level.value ? `?level=${level.value}` : ''}`,
    );
    busy(lines, false);
    if (!reply.ok) return replace(lines, h('p', { class: 'error' }, errorText(reply.body, reply.status)));
    replace(file, reply.body.file);
    replace(
      lines,
      ...(reply.body.lines.length ? reply.body.lines.map(line) : [h('p', { class: 'muted' }, 'The log is empty.')]),
    );
    if (atEnd) lines.scrollTop = lines.scrollHeight;
  };
  level.addEventListener('change', () => void load());
  void load();
  const timer = setInterval(() => void load(), 3000);
  replace(root, h('div', { class: 'page-head' }, h('h1', {}, 'Logs'), level), file, lines);
  return () => clearInterval(timer);
};
