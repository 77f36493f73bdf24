import { h, place, replace, type Child } from '../dom.js';

// One floating tooltip per page, for anything that says more on hover or keyboard focus.

let tip: HTMLElement | undefined;

function element(): HTMLElement {
  if (!tip?.isConnected) {
    tip = h('div', { id: 'tooltip', class: 'tooltip', role: 'tooltip', hidden: true });
    document.body.append(tip);
  }
  return tip;
}

function show(target: Element, content: () => Child[], x?: number, y?: number): void {
  const node = element();
  replace(node, ...content());
  node.hidden = false;
  const box = target.getBoundingClientRect();
  const width = node.offsetWidth;
  const height = node.offsetHeight;
  const left = Math.min(Math.max(8, (x ?? box.left + box.width / 2) - width / 2), window.innerWidth - width - 8);
  const below = (y ?? box.bottom) + 12;
  const top = below + height > window.innerHeight - 8 ? (y ?? box.top) - height - 12 : below;
  place(node, { left: `${left + window.scrollX}px`, top: `${Math.max(8, top) + window.scrollY}px` });
}

export function hideTooltip(): void {
  if (tip) tip.hidden = true;
}

/** Shows `content` next to `target` while the pointer is over it or it has focus. */
export function withTooltip<T extends HTMLElement | SVGElement>(target: T, content: () => Child[]): T {
  target.addEventListener('mousemove', (event) =>
    show(target, content, (event as MouseEvent).clientX, (event as MouseEvent).clientY),
  );
  target.addEventListener('mouseleave', hideTooltip);
  target.addEventListener('focus', () => show(target, content));
  target.addEventListener('blur', hideTooltip);
  return target;
}
