import { errorText, getJson } from '../api.js';
import type { BudgetView, UsageReport, UsageRowView } from '../../../bus/api-shapes.js';
import { barChart } from '../components/bar-chart.js';
import { costTag, moneyTick } from '../components/cost.js';
import { stats } from '../components/stats.js';
import { busy, h, place, replace, type Child } from '../dom.js';
import { costText, count, exact, money, plural } from '../format.js';
import { onLive } from '../live.js';
import type { Page } from './page.js';

type Range = { name: string; label: string; by: 'hour' | 'day'; days?: number };

/** The ranges the page offers, `#/usage/<name>`; days are whole local days, today included. */
const RANGES: Range[] = [
  { name: '24h', label: 'Last 24 hours', by: 'hour' },
  { name: '7d', label: 'Last 7 days', by: 'day', days: 7 },
  { name: '30d', label: 'Last 30 days', by: 'day', days: 30 },
  { name: '90d', label: 'Last 90 days', by: 'day', days: 90 },
  { name: 'all', label: 'All time', by: 'day' },
];
const DEFAULT_RANGE = '30d';

const pad = (n: number): string => String(n).padStart(2, '0');
/** The keys `/api/usage` gives days and hours: `2026-11-26`, `2026-11-26 14:00` (local time). */
const dayKey = (d: Date): string => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
const hourKey = (d: Date): string => `${dayKey(d)} ${pad(d.getHours())}:00`;

function dateOf(key: string): Date {
  const [y = 0, m = 1, d = 1] = key.slice(0, 10).split('-').map(Number);
  return new Date(y, m - 1, d, Number(key.slice(11, 13) || 0));
}

/** `since` for the range: the start of the hour 23 hours ago, or the first of its days; nothing for all time. */
function sinceOf(range: Range, now: Date): string | undefined {
  if (range.by === 'hour')
    return new Date(now.getFullYear(), now.getMonth(), now.getDate(), now.getHours() - 23).toISOString();
  return range.days ? dayKey(new Date(now.getFullYear(), now.getMonth(), now.getDate() - range.days + 1)) : undefined;
}

/** Every hour or day of the range, those without answers too, so the chart's gaps are real. */
function bucketsOf(range: Range, now: Date, rows: UsageRowView[]): string[] {
  const keys = new Set(rows.map((r) => r.key));
  if (range.by === 'hour') {
    for (let i = 23; i >= 0; i--)
      keys.add(hourKey(new Date(now.getFullYear(), now.getMonth(), now.getDate(), now.getHours() - i)));
  } else {
    const first = range.days ? now.getDate() - range.days + 1 : undefined;
    const start =
      first !== undefined ? new Date(now.getFullYear(), now.getMonth(), first) : rows[0] ? dateOf(rows[0].key) : now;
    for (let d = new Date(start); dayKey(d) <= dayKey(now); d.setDate(d.getDate() + 1)) keys.add(dayKey(d));
  }
  return [...keys].sort();
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const dayLabel = (key: string): string => `${MONTHS[Number(key.slice(5, 7)) - 1] ?? ''} ${Number(key.slice(8, 10))}`;
const bucketLabel = (key: string, by: Range['by']): string => (by === 'hour' ? key.slice(11) : dayLabel(key));

/** Answers whose cost is unknown: of a model without a price, or without usage figures. */
const unknownCalls = (row: UsageRowView): number => Math.min(row.calls, row.unpriced_calls + row.unreported_calls);

const costOfRow = (row: UsageRowView): string => costText(row.calls, row.cost_usd, unknownCalls(row));

const costCell = (row: UsageRowView): HTMLElement =>
  costTag(row.calls, row.cost_usd, row.unpriced_calls, row.unreported_calls);

const empty = (key: string): UsageRowView => ({
  key,
  turns: 0,
  calls: 0,
  input_tokens: 0,
  cached_input_tokens: 0,
  cache_write_input_tokens: 0,
  output_tokens: 0,
  reasoning_tokens: 0,
  cost_usd: 0,
  unpriced_calls: 0,
  unreported_calls: 0,
});

/** What the legend adds about a column: its answers and turns, reasoning tokens among the output. */
function rowDetail(name: string, row: UsageRowView): string {
  if (row.calls === 0) return `${name}: no model answers`;
  const answers = `${plural(row.calls, 'answer')} in ${plural(row.turns, 'turn')}`;
  return `${name}: ${answers}, ${exact(row.reasoning_tokens)} of the output tokens reasoning`;
}

function charts(series: UsageReport, range: Range): HTMLElement[] {
  const rows = new Map(series.rows.map((r) => [r.key, r]));
  const buckets = bucketsOf(range, new Date(), series.rows).map((key) => rows.get(key) ?? empty(key));
  const name = (row: UsageRowView): string =>
    range.by === 'hour'
      ? `${dayLabel(row.key)}, ${row.key.slice(11)}–${pad((Number(row.key.slice(11, 13)) + 1) % 24)}:00`
      : `${dayLabel(row.key)}, ${row.key.slice(0, 4)}`;
  const per = range.by === 'hour' ? 'hour' : 'day';
  const columns = {
    column: per,
    labels: buckets.map((row) => bucketLabel(row.key, range.by)),
    names: buckets.map(name),
    detail: (column: number) => (buckets[column] ? rowDetail(name(buckets[column]), buckets[column]) : ''),
  };
  const writes = buckets.some((row) => row.cache_write_input_tokens > 0);
  const tokens = (value: number): string => `${exact(value)} tokens`;
  return [
    h('h2', {}, `Tokens per ${per}`),
    barChart({
      id: 'usage-tokens',
      title: `tokens per ${per}`,
      whole: true,
      axis: count,
      ...columns,
      series: [
        {
          key: 'cached',
          label: 'cached input',
          color: '--chunks',
          values: buckets.map((row) => row.cached_input_tokens),
          format: tokens,
        },
        ...(writes
          ? [
              {
                key: 'cache-write',
                label: 'written to the cache',
                color: '--cache-write',
                values: buckets.map((row) => row.cache_write_input_tokens),
                format: tokens,
              },
            ]
          : []),
        {
          key: 'input',
          label: writes ? 'other input' : 'input',
          color: '--model',
          values: buckets.map((row) =>
            Math.max(0, row.input_tokens - row.cached_input_tokens - row.cache_write_input_tokens),
          ),
          format: tokens,
        },
        {
          key: 'output',
          label: 'output',
          color: '--tool',
          values: buckets.map((row) => row.output_tokens),
          format: tokens,
        },
      ],
    }),
    h('h2', {}, `Cost per ${per}`),
    barChart({
      id: 'usage-cost',
      title: `cost per ${per} in US dollars (? marks answers whose cost is unknown)`,
      whole: false,
      axis: moneyTick,
      ...columns,
      series: [
        {
          key: 'cost',
          label: 'cost (US dollars)',
          color: '--subagent',
          values: buckets.map((row) => row.cost_usd),
          format: (_value, column) => (buckets[column] ? costOfRow(buckets[column]) : ''),
        },
      ],
      marks: buckets.map((row) => unknownCalls(row) > 0),
    }),
    buckets.some((row) => unknownCalls(row) > 0)
      ? h(
          'p',
          { class: 'muted small', id: 'usage-cost-marks' },
          'A ? over a column: it has answers of a model without a price or without usage figures, ' +
            'whose cost is unknown.',
        )
      : null,
  ].filter((node): node is HTMLElement => node !== null);
}

/** A breakdown (by model, by agent) as a table, each row's share of the tokens drawn as a bar. */
function breakdown(id: string, what: string, report: UsageReport): HTMLElement {
  const all = report.total.input_tokens + report.total.output_tokens;
  const rows = [...report.rows].sort((a, b) => b.input_tokens + b.output_tokens - (a.input_tokens + a.output_tokens));
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { id, class: 'usage-table' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...[what, 'answers', 'input', 'cached', 'output', 'cost', 'share of tokens'].map((t) => h('th', {}, t)),
        ),
      ),
      h(
        'tbody',
        {},
        ...rows.map((row) => {
          const share = all > 0 ? ((row.input_tokens + row.output_tokens) / all) * 100 : 0;
          const fill = h('span', { class: 'share-fill' });
          place(fill, { width: `${share}%` });
          return h(
            'tr',
            { 'data-key': row.key },
            h('td', { class: 'name' }, row.key),
            h('td', { class: 'num', 'data-label': 'answers' }, exact(row.calls)),
            h('td', { class: 'num', 'data-label': 'input' }, exact(row.input_tokens)),
            h('td', { class: 'num', 'data-label': 'cached' }, exact(row.cached_input_tokens)),
            h('td', { class: 'num', 'data-label': 'output' }, exact(row.output_tokens)),
            h('td', { class: 'num', 'data-label': 'cost' }, costCell(row)),
            h(
              'td',
              { class: 'share', 'data-label': 'share of tokens' },
              h('span', { class: 'share-track', title: `${share.toFixed(1)}%` }, fill),
              h('span', { class: 'share-text' }, `${Math.round(share)}%`),
            ),
          );
        }),
      ),
    ),
  );
}

function budgetItem(budget: BudgetView): HTMLElement {
  const share = budget.limit_usd > 0 ? budget.spent_usd / budget.limit_usd : 1;
  const percent = Math.floor(share * 100);
  const tone = share >= 1 ? 'bad' : share >= 0.8 ? 'warn' : 'ok';
  const fill = h('span', { class: 'meter-fill' });
  place(fill, { width: `${Math.min(100, share * 100)}%` });
  const when = budget.period === 'daily' ? 'today' : 'this month';
  const state =
    tone === 'bad'
      ? `Spent: no new turn of ${budget.agent} starts until ${budget.period === 'daily' ? 'tomorrow' : 'next month'}.`
      : tone === 'warn'
        ? 'Over 80%: the next reply says so.'
        : '';
  return h(
    'li',
    { class: `budget ${tone}`, 'data-agent': budget.agent, 'data-period': budget.period },
    h(
      'div',
      { class: 'budget-top' },
      h('span', {}, h('strong', {}, budget.agent), ` · ${budget.period} budget, ${when} (${budget.span})`),
      h('span', { class: 'budget-figures' }, `${money(budget.spent_usd)} of ${money(budget.limit_usd)} (${percent}%)`),
    ),
    h(
      'div',
      {
        class: 'meter',
        role: 'progressbar',
        'aria-valuemin': 0,
        'aria-valuemax': 100,
        'aria-valuenow': Math.min(100, percent),
        'aria-label': `${budget.agent} ${budget.period} budget`,
      },
      fill,
    ),
    h('div', { class: 'muted small' }, state, state ? ' ' : '', 'Set by ', h('code', {}, budget.source), '.'),
  );
}

function budgetsCard(budgets: BudgetView[], unpriced: boolean): HTMLElement {
  return h(
    'section',
    { class: 'card', id: 'usage-budgets' },
    h('h2', {}, 'Budgets'),
    budgets.length
      ? h('ul', { class: 'budget-list' }, ...budgets.map(budgetItem))
      : h(
          'p',
          { class: 'muted' },
          'No budget is set. ',
          h('code', {}, 'agents.defaults.budget {"daily", "monthly"}'),
          " (or an agent's own in ",
          h('code', {}, 'agents.list[]'),
          ') caps what each agent spends, in US dollars per local day and month.',
        ),
    budgets.length && unpriced
      ? h('p', { class: 'muted small' }, 'Answers of models without a price do not count towards a budget.')
      : null,
  );
}

function view(range: Range, series: UsageReport, models: UsageReport, agents: UsageReport): Child[] {
  const total = series.total;
  const facts = stats(
    [
      ['cost', costCell(total)],
      ['input tokens', `${exact(total.input_tokens)}${total.unreported_calls ? ' + unknown' : ''}`],
      ['cached input', exact(total.cached_input_tokens)],
      ...(total.cache_write_input_tokens
        ? [['written to cache', exact(total.cache_write_input_tokens)] as [string, Child]]
        : []),
      ['output tokens', `${exact(total.output_tokens)}${total.unreported_calls ? ' + unknown' : ''}`],
      ['model answers', exact(total.calls)],
      ['turns', exact(total.turns)],
    ],
    'usage-totals',
  );
  const unpriced = series.unpriced_models.length > 0;
  return [
    facts,
    unpriced
      ? h(
          'div',
          { class: 'banner warn', id: 'usage-unpriced' },
          h(
            'p',
            {},
            `No price for ${series.unpriced_models.join(', ')}: answers of ` +
              `${series.unpriced_models.length === 1 ? 'this model count' : 'these models count'} in tokens, ` +
              'their cost is unknown (?), not $0. Set ',
            h('code', {}, 'model_list[].pricing {"input", "output", "cached_input"}'),
            ' in US dollars per million tokens.',
          ),
        )
      : null,
    budgetsCard(series.budgets, unpriced),
    ...(total.calls === 0
      ? [
          h(
            'section',
            { class: 'card empty', id: 'usage-empty' },
            h('h2', {}, 'No usage yet'),
            h(
              'p',
              { class: 'muted' },
              `No model answered in ${range.label.toLowerCase()}. ` +
                "Every answer's tokens are recorded; they show here after the agents' next replies.",
            ),
          ),
        ]
      : [
          ...charts(series, range),
          h('h2', {}, 'By model'),
          breakdown('usage-by-model', 'model', models),
          h('h2', {}, 'By agent'),
          breakdown('usage-by-agent', 'agent', agents),
        ]),
  ];
}

/**
 * Tokens and cost over a range (by hour for the last 24 hours, else by day), by model and by agent, with each
 * budget's state; redrawn as answers come in.
 */
export const usagePage: Page = (root, param) => {
  const range = RANGES.find((r) => r.name === param) ?? RANGES.find((r) => r.name === DEFAULT_RANGE) ?? RANGES[0]!;
  const select = h(
    'select',
    { id: 'usage-range', 'aria-label': 'range', onchange: () => (window.location.hash = `#/usage/${select.value}`) },
    ...RANGES.map((r) => h('option', { value: r.name }, r.label)),
  );
  select.value = range.name;
  const body = h('div', { id: 'usage', 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Loading…'));
  const load = async (): Promise<void> => {
    const since = sinceOf(range, new Date());
    const query = since === undefined ? '' : `&since=${encodeURIComponent(since)}`;
    const [series, models, agents] = await Promise.all(
      [range.by, 'model', 'agent'].map((by) => getJson<UsageReport>(`/api/usage?by=${by}${query}`)),
    );
    const failed = [series, models, agents].find((reply) => !reply?.ok);
    busy(body, false);
    if (failed || !series || !models || !agents)
      return replace(body, h('p', { class: 'error' }, failed ? errorText(failed.body, failed.status) : 'no answer'));
    replace(body, ...view(range, series.body, models.body, agents.body));
    body.dataset.loaded = String(series.body.total.calls);
  };
  // New answers and budget events redraw the page, once per burst.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = onLive((event) => {
    if (event.type !== 'provider.responded' && !event.type.startsWith('budget.')) return;
    clearTimeout(timer);
    timer = setTimeout(() => void load(), 500);
  });
  replace(root, h('div', { class: 'page-head' }, h('h1', {}, 'Usage'), select), body);
  void load();
  return () => {
    stop();
    clearTimeout(timer);
  };
};
