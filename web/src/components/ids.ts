import { h, svg } from '../dom.js';
import { shortId } from '../format.js';

/** A long id shortened, whole on hover, copied whole with the button beside it. */
const copyIcon = (): SVGSVGElement =>
  svg(
    'svg',
    { viewBox: '0 0 16 16', width: 12, height: 12, 'aria-hidden': 'true', class: 'icon' },
    svg('rect', { x: 5, y: 5, width: 9, height: 9, rx: 1.5 }),
    svg('path', { d: 'M11 5V3.5A1.5 1.5 0 0 0 9.5 2h-6A1.5 1.5 0 0 0 2 3.5v6A1.5 1.5 0 0 0 3.5 11H5' }),
  );

/** A long id shortened, whole on hover, copied whole with the button beside it. */
export function idChip(id: string, href?: string): HTMLElement {
  const text = shortId(id);
  const label = href ? h('a', { href, title: id, class: 'mono' }, text) : h('span', { title: id, class: 'mono' }, text);
  const copy = h(
    'button',
    { type: 'button', class: 'copy', title: `copy ${id}`, 'aria-label': `copy ${id}` },
    copyIcon(),
  );
  copy.addEventListener('click', (event) => {
    event.preventDefault();
    event.stopPropagation();
    void navigator.clipboard?.writeText(id).then(
      () => {
        copy.classList.add('copied');
        setTimeout(() => copy.classList.remove('copied'), 1200);
      },
      () => undefined,
    );
  });
  return h('span', { class: 'id-chip', 'data-id': id }, label, copy);
}

/** A state or outcome as a coloured pill; `tone` picks the colour. */
export function pill(
  text: string,
  tone: 'ok' | 'bad' | 'busy' | 'idle' | 'off' = 'idle',
  props: Record<string, string> = {},
): HTMLElement {
  return h('span', { class: `pill ${tone}`, ...props }, text);
}

const BUSY = new Set([
  'starting',
  'stopping',
  'running',
  'calling_model',
  'running_tool',
  'building_prompt',
  'connecting',
  'draining',
  'waiting',
  'retrying_without_stream',
  'showing',
]);
const BAD = new Set(['failed', 'aborted']);
const OK = new Set(['connected', 'done', 'completed', 'serving', 'scheduled', 'idle']);

/** The colour a state reads in: failures red, work in progress blue, settled states green, the rest grey. */
export function toneOf(state: string): 'ok' | 'bad' | 'busy' | 'idle' | 'off' {
  const top = state.split('.')[0] ?? state;
  if (BAD.has(top)) return 'bad';
  if (OK.has(top)) return 'ok';
  if (BUSY.has(top)) return 'busy';
  if (top === 'stopped' || top === 'disabled') return 'off';
  return 'idle';
}
