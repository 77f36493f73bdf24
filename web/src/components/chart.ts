import { svg } from '../dom.js';
import type { ChartNode } from '../../../bus/api-shapes.js';
import { layoutChart, NODE_H, type Layout } from './chart-layout.js';

// A machine's chart as an SVG state diagram: states as boxes (final ones doubled), moves as arrows labelled
// with their events, the initial state marked by a dot. Each machine is laid out once; every actor of it
// gets a copy whose current state and last move are lit.

const templates = new Map<string, { node: SVGSVGElement; layout: Layout }>();

function arrowDefs(): SVGDefsElement {
  const marker = (id: string) =>
    svg(
      'marker',
      { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
      svg('path', { d: 'M0,0 L10,5 L0,10 z', class: id }),
    );
  return svg('defs', {}, marker('arrow'), marker('arrow-lit'));
}

/** The arrowheads every chart points to: one hidden definition per page. */
export function chartDefs(): SVGSVGElement {
  return svg('svg', { class: 'chart-defs', width: 0, height: 0, 'aria-hidden': 'true' }, arrowDefs());
}

function build(chart: ChartNode): { node: SVGSVGElement; layout: Layout } {
  const layout = layoutChart(chart);
  const edges = layout.edges.map((edge) =>
    svg(
      'g',
      { class: 'edge', 'data-from': edge.from, 'data-to': edge.to },
      svg('title', {}, edge.title),
      svg('path', { d: edge.path, class: 'edge-line', 'marker-end': 'url(#arrow)' }),
      edge.label
        ? svg(
            'text',
            { x: edge.label.x, y: edge.label.y, 'text-anchor': edge.label.anchor, class: 'edge-label' },
            edge.label.text,
          )
        : null,
    ),
  );
  const nodes = layout.nodes.map((node) =>
    svg(
      'g',
      { class: `node${node.final ? ' final' : ''}`, 'data-state': node.key },
      svg('title', {}, node.sub ? `${node.label} (${node.sub})` : node.label),
      svg('rect', { x: node.x, y: node.y, width: node.w, height: NODE_H, rx: 7, class: 'node-box' }),
      node.final
        ? svg('rect', {
            x: node.x + 3,
            y: node.y + 3,
            width: node.w - 6,
            height: NODE_H - 6,
            rx: 5,
            class: 'node-inner',
          })
        : null,
      svg(
        'text',
        { x: node.x + node.w / 2, y: node.y + NODE_H / 2 + 4, 'text-anchor': 'middle', class: 'node-label' },
        node.label,
      ),
    ),
  );
  const start = layout.initial;
  const marker = start
    ? svg(
        'g',
        { class: 'initial' },
        svg('circle', { cx: start.x + start.w / 2, cy: 6, r: 4 }),
        svg('path', {
          d: `M${start.x + start.w / 2},10 L${start.x + start.w / 2},${start.y}`,
          class: 'edge-line',
          'marker-end': 'url(#arrow)',
        }),
      )
    : null;
  const { box } = layout;
  const node = svg(
    'svg',
    {
      class: 'chart',
      viewBox: `${box.x} ${box.y} ${box.width} ${box.height}`,
      width: box.width,
      height: box.height,
      role: 'img',
    },
    marker,
    ...edges,
    ...nodes,
  );
  return { node, layout };
}

/** A copy of the machine's chart with `state` lit and the move `from` → `state` marked as the last one. */
export function drawChart(machine: string, chart: ChartNode, state: string, from?: string): SVGSVGElement {
  let template = templates.get(machine);
  if (!template) {
    template = build(chart);
    templates.set(machine, template);
  }
  const copy = template.node.cloneNode(true) as SVGSVGElement;
  copy.setAttribute('aria-label', `${machine} state chart`);
  light(copy, state, from);
  return copy;
}

/** States not drawn (reached from any state) are listed under the chart. */
export function anyStateMoves(machine: string): string[] {
  return templates.get(machine)?.layout.anyState ?? [];
}

const topOf = (state: string): string => state.split('.')[0] ?? state;

/** Lights the current state and the move that led to it. */
export function light(chart: SVGSVGElement, state: string, from?: string): void {
  const current = topOf(state);
  const previous = from ? topOf(from) : undefined;
  chart
    .querySelectorAll('.node')
    .forEach((node) => node.classList.toggle('current', node.getAttribute('data-state') === current));
  chart.querySelectorAll('.edge').forEach((edge) => {
    const last =
      previous !== undefined && edge.getAttribute('data-from') === previous && edge.getAttribute('data-to') === current;
    edge.classList.toggle('last', last);
    edge.querySelector('path')?.setAttribute('marker-end', last ? 'url(#arrow-lit)' : 'url(#arrow)');
  });
}

/** A move as it happens: lit, and the arrow and the state it reaches animated once. */
export function fire(chart: SVGSVGElement, state: string, from?: string): void {
  light(chart, state, from);
  const animated = [chart.querySelector('.edge.last'), chart.querySelector('.node.current')];
  for (const node of animated) {
    if (!node) continue;
    node.classList.remove('fired');
    // Reading layout restarts the CSS animation when the same move fires twice in a row.
    void chart.getBoundingClientRect();
    node.classList.add('fired');
    node.addEventListener('animationend', () => node.classList.remove('fired'), { once: true });
  }
}
