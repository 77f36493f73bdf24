import { h, place, type Child } from '../dom.js';
import { duration, exact, money } from '../format.js';
import type { CallUsage, ChildTimelineView, Span } from '../../../bus/api-shapes.js';
import { prettyJson } from './conversation.js';
import { ticks } from './scale.js';
import { withTooltip } from './tooltip.js';

/** A bar and how deep it sits: a model call's streamed chunks one level under it (a child timeline likewise). */
export type WaterfallRow = { span: Span; depth: number };

const LEGEND: Array<[string, string]> = [
  ['prompt', 'building the prompt'],
  ['model', 'model call'],
  ['chunks', 'streamed answer'],
  ['tool', 'tool call'],
  ['subagent', 'subagent'],
  ['failed', 'failed'],
];

/**
 * The spans as rows: each model call's chunks right under it, and under the `spawn` or `subagent` call that
 * started one, a subagent's bar with its own turn's rows one level deeper (a subagent started otherwise at the end).
 */
export function rowsOf(spans: Span[], children: ChildTimelineView[] = [], depth = 0): WaterfallRow[] {
  const childRows = (child: ChildTimelineView): WaterfallRow[] => [
    { span: child.bar, depth: depth + 1 },
    ...rowsOf(child.spans, child.children, depth + 2),
  ];
  const calls = new Set(spans.flatMap((span) => (span.kind === 'tool' ? [span.call_id] : [])));
  const rows = spans.flatMap((span) => [
    { span, depth: depth + (span.kind === 'chunks' ? 1 : 0) },
    ...(span.kind === 'tool' ? children.filter((c) => c.call === span.call_id).flatMap(childRows) : []),
  ]);
  return [...rows, ...children.filter((c) => !c.call || !calls.has(c.call)).flatMap(childRows)];
}

/** A model call's tokens and what they cost at the model's price. */
function callUsage(model: string, usage: CallUsage | undefined): HTMLElement[] {
  if (!usage)
    return [
      h('div', { class: 'tip-tokens' }, 'tokens: not reported'),
      h('div', { class: 'tip-cost' }, 'cost: unknown without tokens'),
    ];
  const cached = usage.cached_input_tokens ? ` (${exact(usage.cached_input_tokens)} cached)` : '';
  return [
    h(
      'div',
      { class: 'tip-tokens' },
      `tokens: ${exact(usage.input_tokens)} in${cached} / ${exact(usage.output_tokens)} out`,
    ),
    h(
      'div',
      { class: 'tip-cost' },
      usage.cost_usd === undefined ? `cost: unknown (no price for ${model})` : `cost: ${money(usage.cost_usd)}`,
    ),
  ];
}

function tip(span: Span): Child[] {
  const lines: Child[] = [
    h('strong', {}, span.label),
    h('div', {}, `${duration(span.ms)} · from ${duration(span.start)} to ${duration(span.end)}`),
  ];
  switch (span.kind) {
    case 'prompt':
      lines.push(h('div', {}, `${span.messages} messages, ${span.tools} tools offered`));
      break;
    case 'model':
      lines.push(h('div', {}, `model ${span.model}, call ${span.iteration}`));
      lines.push(...callUsage(span.model, span.usage));
      if (span.tool_calls)
        lines.push(h('div', {}, `asked for ${span.tool_calls} tool call${span.tool_calls === 1 ? '' : 's'}`));
      break;
    case 'chunks':
      lines.push(h('div', {}, `${span.count} chunks streamed`));
      break;
    case 'tool':
      lines.push(h('div', {}, 'arguments'), h('pre', {}, prettyJson(span.arguments)));
      lines.push(h('div', {}, `result: ${exact(span.result_chars)} chars`));
      break;
    case 'subagent':
      lines.push(h('div', {}, `task ${span.task} · agent ${span.agent} · ${span.outcome}`));
      break;
  }
  if ('error' in span && span.error) lines.push(h('div', { class: 'tip-error' }, span.error));
  return lines;
}

/** The turn's waterfall: a time axis, a legend, one bar per span with its details on hover or focus. */
export function waterfall(rows: WaterfallRow[], endMs: number): HTMLElement {
  const total = Math.max(1, endMs, ...rows.map((r) => r.span.end));
  const at = (ms: number): string => `${(ms / total) * 100}%`;
  const axis = h('div', { class: 'wf-axis' });
  const lines = h('div', { class: 'wf-lines', 'aria-hidden': 'true' });
  // A phone's narrow track has room for fewer labels.
  for (const t of ticks(total, window.matchMedia('(max-width: 640px)').matches ? 3 : 6)) {
    const label = h('span', { class: 'wf-tick' }, duration(t));
    const line = h('span', { class: 'wf-line' });
    place(label, { left: at(t) });
    place(line, { left: at(t) });
    axis.append(label);
    lines.append(line);
  }
  const body = rows.map(({ span, depth }) => {
    const bar = h('span', { class: 'bar' });
    place(bar, { left: at(span.start), width: at(Math.max(span.end - span.start, 0)) });
    const name = span.kind === 'model' ? `${span.label} · ${span.model}` : span.label;
    const row = h(
      'div',
      {
        class: `wf-row ${span.kind}${span.ok ? '' : ' failed'} depth-${Math.min(depth, 4)}`,
        tabindex: 0,
        'data-kind': span.kind,
      },
      h(
        'div',
        { class: 'wf-label' },
        span.kind === 'subagent' && span.turn
          ? h('a', { class: 'wf-name', href: `#/turn/${span.turn}` }, name)
          : h('span', { class: 'wf-name' }, name),
        h('span', { class: 'wf-ms' }, duration(span.ms)),
      ),
      h('div', { class: 'wf-track' }, bar),
    );
    return withTooltip(row, () => tip(span));
  });
  const kinds = new Set(rows.map((r) => r.span.kind));
  const legend = LEGEND.filter(([kind]) => kind !== 'subagent' || kinds.has('subagent'));
  return h(
    'section',
    { id: 'waterfall', class: 'waterfall' },
    h(
      'ul',
      { class: 'wf-legend', 'aria-label': 'legend' },
      ...legend.map(([kind, text]) => h('li', { class: kind }, h('span', { class: 'swatch' }), text)),
    ),
    h('div', { class: 'wf-head' }, h('div', { class: 'wf-label' }, 'ms from the turn start'), axis),
    h('div', { class: 'wf-rows' }, lines, ...body),
  );
}
