import { h, svg, replace, type Child } from '../dom.js';
import { ticks } from './scale.js';
import { withTooltip } from './tooltip.js';

/** One coloured part of a column; `series` is its class and legend entry. */
export type Segment = { series: string; value: number };

/** One column (a day or an hour): its parts stacked from the axis up, a mark above it (`?`), and what hovering says. */
export type Column = { key: string; label: string; segments: Segment[]; mark?: string; tip: () => Child[] };

export type BarChart = {
  id: string;
  /** What the chart shows, for screen readers. */
  title: string;
  /** Each series' class and legend text, bottom of the stack first. */
  series: Array<[string, string]>;
  /** An axis value as the axis labels show it. */
  axis: (value: number) => string;
  /** The smallest axis step: 1 for whole tokens, 0 for dollars. */
  least: number;
  columns: Column[];
};

const HEIGHT = 200;
const TOP = 16;
const BOTTOM = 22;
const LEFT = 52;
const RIGHT = 6;
const LABEL_WIDTH = 46;

function draw(chart: BarChart, width: number): SVGSVGElement {
  const plot = { left: LEFT, top: TOP, width: Math.max(40, width - LEFT - RIGHT), height: HEIGHT - TOP - BOTTOM };
  const totals = chart.columns.map((c) => c.segments.reduce((sum, s) => sum + s.value, 0));
  const max = Math.max(0, ...totals);
  const marks = ticks(max, 4, chart.least);
  const step = marks[1] ?? (max || 1);
  const last = marks.at(-1) ?? 0;
  const top = last >= max && last > 0 ? last : last + step;
  if (top > last) marks.push(top);
  const y = (value: number): number => plot.top + plot.height - (value / top) * plot.height;
  const slot = plot.width / Math.max(1, chart.columns.length);
  const barWidth = Math.min(48, Math.max(1, slot * 0.72));
  const every = Math.max(1, Math.ceil(LABEL_WIDTH / slot));
  const grid = marks.map((value) => svg('g', { class: 'tick' },
    svg('line', { class: 'grid', x1: plot.left, x2: plot.left + plot.width, y1: y(value), y2: y(value) }),
    svg('text', { class: 'y-label', x: plot.left - 6, y: y(value) + 3.5, 'text-anchor': 'end' }, chart.axis(value))));
  const columns = chart.columns.map((column, index) => {
    const x = plot.left + index * slot;
    let base = 0;
    const bars = column.segments.filter((s) => s.value > 0).map((segment) => {
      const rect = svg('rect', {
        class: `bar ${segment.series}`, 'data-series': segment.series, 'data-value': segment.value,
        x: x + (slot - barWidth) / 2, width: barWidth, y: y(base + segment.value), height: y(base) - y(base + segment.value),
      });
      base += segment.value;
      return rect;
    });
    const hit = svg('rect', { class: 'hit', x, y: plot.top, width: slot, height: plot.height });
    const group = svg('g', { class: 'column', 'data-key': column.key, 'data-total': totals[index] ?? 0, tabindex: 0, 'aria-label': column.label },
      hit, ...bars,
      column.mark ? svg('text', { class: 'mark', x: x + slot / 2, y: y(base) - 4, 'text-anchor': 'middle' }, column.mark) : null,
      index % every === 0 ? svg('text', { class: 'x-label', x: x + slot / 2, y: HEIGHT - 6, 'text-anchor': 'middle' }, column.label) : null);
    return withTooltip(group, column.tip);
  });
  return svg('svg', { class: 'bar-chart', role: 'img', 'aria-label': chart.title, width, height: HEIGHT, viewBox: `0 0 ${width} ${HEIGHT}` },
    ...grid, svg('line', { class: 'axis', x1: plot.left, x2: plot.left + plot.width, y1: y(0), y2: y(0) }), ...columns);
}

/**
 * Columns of stacked bars as SVG, with a value axis, a legend and a tooltip per column; drawn to the width it is
 * given (text stays its size on a phone) and redrawn when that changes.
 */
export function barChart(chart: BarChart): HTMLElement {
  const frame = h('div', { class: 'chart-frame' });
  let drawn = -1;
  const observer = new ResizeObserver(() => {
    // Once drawn, leaving the page detaches the frame: nothing to watch any more.
    if (!frame.isConnected) {
      if (drawn >= 0) observer.disconnect();
      return;
    }
    const width = Math.floor(frame.clientWidth);
    if (width === drawn || width === 0) return;
    drawn = width;
    replace(frame, draw(chart, width));
  });
  observer.observe(frame);
  return h('figure', { class: 'usage-chart', id: chart.id },
    h('ul', { class: 'chart-legend', 'aria-label': 'legend' }, ...chart.series.map(([series, text]) => h('li', { class: series }, h('span', { class: 'swatch' }), text))),
    frame);
}
