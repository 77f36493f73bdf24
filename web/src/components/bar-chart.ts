import uPlot from 'uplot';
import { h } from '../dom.js';

/** One series of bars: its legend row's class and text, its colour (a CSS custom property), a value per column. */
export type BarSeries = {
  key: string;
  label: string;
  color: string;
  values: number[];
  format: (value: number, column: number) => string;
};

export type BarChart = {
  id: string;
  /** What the chart shows, for screen readers. */
  title: string;
  /**
   * What a column is (`day`), each column's axis label (`Nov 26`, `14:00`) and its name in the legend (`Nov 26, 2026`).
   */
  column: string;
  labels: string[];
  names: string[];
  /** Stacked from the axis up, bottom first. */
  series: BarSeries[];
  /** A value axis label; `ticks` are all the axis's values, so labels can carry the digits that tell them apart. */
  axis: (value: number, ticks: number[]) => string;
  /** Whole steps only (tokens), or fractions too (dollars). */
  whole: boolean;
  /** Columns that get a `?` over their bar (answers of a model without a price). */
  marks?: boolean[];
  /** What the legend says about a column beyond the series' values (answers, turns). */
  detail?: (column: number) => string;
};

const HEIGHT = 220;
/** 1, 2, 5 × powers of ten: a whole-number axis never steps by 0.5 tokens. */
const WHOLE_STEPS = Array.from({ length: 13 }, (_, power) => [1, 2, 5].map((m) => m * 10 ** power)).flat();

const cssColor = (name: string): string =>
  getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';

/**
 * Where each shown series' bars start and end in each column: stacked on the shown series under it, so hiding a
 * series in the legend closes its gap.
 */
function stacks(u: uPlot): { from: number[][]; to: number[][] } {
  const from: number[][] = [];
  const to: number[][] = [];
  const base = (u.data[0] as number[]).map(() => 0);
  u.series.forEach((series, index) => {
    if (index === 0) return;
    const values = u.data[index] as number[];
    from[index] = [...base];
    if (series.show !== false) values.forEach((value, column) => (base[column] = (base[column] ?? 0) + value));
    to[index] = [...base];
  });
  return { from, to };
}

function options(chart: BarChart, width: number, detail: HTMLElement, frame: HTMLElement): uPlot.Options {
  const columns = chart.labels.length;
  const grid = { stroke: cssColor('--line'), width: 1 };
  const axisColor = cssColor('--muted');
  let stacked = { from: [] as number[][], to: [] as number[][] };
  const bars = uPlot.paths.bars?.({
    size: [0.72, 48],
    disp: {
      // Read as each series is drawn, so a series hidden in the legend restacks the others.
      y0: { unit: 1, values: (u: uPlot, index: number) => (stacked = stacks(u)).from[index] ?? [] },
      y1: { unit: 1, values: (_u: uPlot, index: number) => stacked.to[index] ?? [] },
    },
  });
  return {
    width,
    height: HEIGHT,
    class: 'bar-chart',
    // Columns are indices, each centred in an equal slot: column i spans i - 0.5 … i + 0.5.
    scales: {
      x: { time: false, range: () => [-0.5, columns - 0.5] },
      y: {
        range: (u) => {
          stacked = stacks(u);
          const top = Math.max(0, ...stacked.to.flatMap((column) => column ?? []));
          return [0, top > 0 ? (uPlot.rangeNum(0, top, 0.1, true)[1] ?? top) : 1];
        },
      },
    },
    axes: [
      {
        stroke: axisColor,
        grid: { show: false },
        ticks: { show: false },
        size: 28,
        // Labels no closer than about 46 px apart: every column on a wide screen, every few on a phone.
        splits: (u) => {
          const every = Math.max(1, Math.ceil(46 / Math.max(1, u.bbox.width / devicePixelRatio / columns)));
          return Array.from({ length: columns }, (_, i) => i).filter((i) => i % every === 0);
        },
        values: (_u, splits) => splits.map((i) => chart.labels[i] ?? ''),
      },
      {
        stroke: axisColor,
        grid,
        ticks: { stroke: grid.stroke, width: 1, size: 4 },
        size: 56,
        ...(chart.whole ? { incrs: WHOLE_STEPS } : {}),
        values: (_u, splits) => {
          const labels = splits.map((value) => chart.axis(value, splits));
          // The canvas's value axis as text, for screen readers and tests.
          frame.dataset.ticks = labels.join(' | ');
          return labels;
        },
      },
    ],
    series: [
      { label: chart.column, value: (_u, column) => chart.names[column] ?? '—' },
      ...chart.series.map((series): uPlot.Series => {
        const color = cssColor(series.color);
        return {
          label: series.label,
          class: series.key,
          fill: color,
          stroke: color,
          width: 0,
          paths: bars,
          points: { show: false },
          value: (_u, value, _index, column) =>
            value === null || column === null ? '—' : series.format(value, column),
        };
      }),
    ],
    cursor: { y: false, points: { show: false }, drag: { x: false, y: false } },
    legend: { markers: { width: 0 } },
    hooks: {
      setCursor: [
        (u) => {
          const column = u.cursor.idx;
          detail.textContent =
            column === null || column === undefined
              ? 'Point at a column for its figures.'
              : (chart.detail?.(column) ?? '');
        },
      ],
      draw: [
        (u) => {
          if (!chart.marks?.some(Boolean)) return;
          const ctx = u.ctx;
          ctx.save();
          ctx.fillStyle = cssColor('--warn');
          ctx.font = `700 ${12 * devicePixelRatio}px system-ui, sans-serif`;
          ctx.textAlign = 'center';
          chart.marks.forEach((marked, column) => {
            if (!marked) return;
            const top = stacked.to.reduce((highest, values) => Math.max(highest, values?.[column] ?? 0), 0);
            ctx.fillText('?', u.valToPos(column, 'x', true), u.valToPos(top, 'y', true) - 4 * devicePixelRatio);
          });
          ctx.restore();
        },
      ],
    },
  };
}

/**
 * Columns of stacked bars drawn by uPlot on a canvas, with its cursor and legend giving a column's exact figures;
 * drawn to the width of its frame (text keeps its size on a phone) and resized with it.
 */
export function barChart(chart: BarChart): HTMLElement {
  const frame = h('div', { class: 'chart-frame', role: 'img', 'aria-label': chart.title });
  const detail = h('p', { class: 'chart-detail muted small' }, 'Point at a column for its figures.');
  const data: uPlot.AlignedData = [chart.labels.map((_, i) => i), ...chart.series.map((s) => s.values)];
  let plot: uPlot | undefined;
  const observer = new ResizeObserver(() => {
    // Leaving the page detaches the frame: the chart lets go of its window listeners.
    if (!frame.isConnected) {
      if (plot) {
        plot.destroy();
        observer.disconnect();
      }
      return;
    }
    const width = Math.floor(frame.clientWidth);
    if (width === 0 || width === plot?.width) return;
    if (plot) plot.setSize({ width, height: HEIGHT });
    else plot = new uPlot(options(chart, width, detail, frame), data, frame);
  });
  observer.observe(frame);
  return h('figure', { class: 'usage-chart', id: chart.id }, frame, detail);
}
