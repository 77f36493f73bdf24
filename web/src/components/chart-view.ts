import { h } from '../dom.js';

const STEP = 1.4;
const MAX_ZOOM = 6;

type Box = { x: number; y: number; width: number; height: number };

/**
 * A state chart that fits its box and can be zoomed (the − / + buttons) and panned (drag it) to read a large machine
 * on a phone: the SVG keeps its size on the page while its viewBox shows a part of the chart.
 */
export function zoomable(chart: SVGSVGElement): HTMLElement {
  const [x = 0, y = 0, width = 1, height = 1] = (chart.getAttribute('viewBox') ?? '').split(' ').map(Number);
  const whole: Box = { x, y, width, height };
  let zoom = 1;
  let centre = { x: x + width / 2, y: y + height / 2 };
  const view = h('div', { class: 'chart-view', 'data-zoom': '1' });
  const show = (): void => {
    const w = whole.width / zoom;
    const ht = whole.height / zoom;
    // The centre stays where the part shown is still inside the chart.
    centre = {
      x: Math.min(Math.max(centre.x, whole.x + w / 2), whole.x + whole.width - w / 2),
      y: Math.min(Math.max(centre.y, whole.y + ht / 2), whole.y + whole.height - ht / 2),
    };
    chart.setAttribute('viewBox', `${centre.x - w / 2} ${centre.y - ht / 2} ${w} ${ht}`);
    view.dataset.zoom = String(Math.round(zoom * 100) / 100);
    view.classList.toggle('zoomed', zoom > 1);
  };
  const zoomTo = (next: number): void => {
    zoom = Math.min(MAX_ZOOM, Math.max(1, next));
    show();
  };
  const button = (label: string, title: string, action: () => void, cls: string) =>
    h(
      'button',
      { type: 'button', class: `secondary small ${cls}`, title, 'aria-label': title, onclick: action },
      label,
    );
  let drag: { px: number; py: number; cx: number; cy: number } | undefined;
  chart.addEventListener('pointerdown', (event) => {
    if (zoom === 1) return;
    drag = { px: event.clientX, py: event.clientY, cx: centre.x, cy: centre.y };
    chart.setPointerCapture(event.pointerId);
  });
  chart.addEventListener('pointermove', (event) => {
    if (!drag) return;
    const perPixel = whole.width / zoom / Math.max(1, chart.getBoundingClientRect().width);
    centre = { x: drag.cx - (event.clientX - drag.px) * perPixel, y: drag.cy - (event.clientY - drag.py) * perPixel };
    show();
  });
  const endDrag = (): void => {
    drag = undefined;
  };
  chart.addEventListener('pointerup', endDrag);
  chart.addEventListener('pointercancel', endDrag);
  view.append(
    h(
      'div',
      { class: 'chart-tools' },
      button('−', 'zoom out', () => zoomTo(zoom / STEP), 'zoom-out'),
      button('+', 'zoom in (then drag to move)', () => zoomTo(zoom * STEP), 'zoom-in'),
      button(
        'fit',
        'show the whole chart',
        () => {
          centre = { x: whole.x + whole.width / 2, y: whole.y + whole.height / 2 };
          zoomTo(1);
        },
        'zoom-fit',
      ),
    ),
    chart,
  );
  return view;
}
