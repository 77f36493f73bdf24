import type { Envelope } from '../../../bus/index.js';
import { errorText, getJson, sendJson } from '../api.js';
import { h, replace, time } from '../dom.js';
import type { Page } from './page.js';

type Span = { kind: 'model' | 'chunks' | 'tool'; label: string; start: number; end: number; ms: number; ok: boolean };
type Timeline = { turn: string; session?: string; events: Envelope[]; spans: Span[] };
type Rerun = { identical: true; compared: number } | { identical: false; index: number; expected?: unknown; actual?: unknown };

function waterfall(spans: Span[]): HTMLElement {
  const total = Math.max(1, ...spans.map((s) => s.end));
  return h('div', { id: 'waterfall', class: 'waterfall' }, ...spans.map((span) =>
    h('div', { class: `span ${span.kind}${span.ok ? '' : ' failed'}` },
      h('span', { class: 'span-label' }, `${span.label} · ${span.ms} ms`),
      h('span', { class: 'bar', 'data-left': Math.round((span.start / total) * 100), 'data-width': Math.max(1, Math.round((span.ms / total) * 100)) }))));
}

/** CSP forbids inline styles in markup, but the CSSOM is allowed: place the bars from their data. */
function placeBars(root: HTMLElement): void {
  root.querySelectorAll<HTMLElement>('.bar').forEach((bar) => {
    bar.style.marginLeft = `${bar.dataset.left ?? 0}%`;
    bar.style.width = `${bar.dataset.width ?? 1}%`;
  });
}

function rerunText(result: Rerun): string {
  if (result.identical) return `identical (${result.compared} events compared)`;
  return `diverges at event ${result.index}: expected ${JSON.stringify(result.expected)}, got ${JSON.stringify(result.actual)}`;
}

/** A turn's timeline: a waterfall of model calls, chunks and tool calls, its events, and a rerun. */
export const turnPage: Page = (root, turn) => {
  const result = h('p', { id: 'rerun-result' });
  const rerun = async (): Promise<void> => {
    replace(result, 'rerunning…');
    const reply = await sendJson<Rerun>('POST', `/api/turns/${turn ?? ''}/rerun`);
    replace(result, reply.ok ? rerunText(reply.body) : errorText(reply.body, reply.status));
  };
  void getJson<Timeline>(`/api/turns/${turn ?? ''}`).then((reply) => {
    if (!reply.ok) return replace(root, h('h1', {}, 'Turn'), h('p', { class: 'error' }, errorText(reply.body, reply.status)));
    const t = reply.body;
    replace(root, h('h1', {}, `Turn ${t.turn}`), h('p', { class: 'muted' }, `session ${t.session ?? '—'}`),
      h('button', { type: 'button', id: 'rerun', onclick: () => void rerun() }, 'Rerun'), result,
      h('h2', {}, 'Timeline'), waterfall(t.spans),
      h('h2', {}, 'Events'),
      h('ol', { class: 'mono' }, ...t.events.map((e) => h('li', {}, `#${e.seq} ${time(e.at)} ${e.type} ${JSON.stringify(e.data).slice(0, 200)}`))));
    placeBars(root);
  });
  replace(root, h('p', {}, 'Loading…'));
  return () => {};
};
