import type { Envelope } from '../../../bus/index.js';
import { h } from '../dom.js';
import { shortId, stamp } from '../format.js';
import { describe, familyOf } from './event-text.js';

/**
 * One event as a row: its number, time, the gateway that wrote it (in a cluster), type, session and turn (linked), and
 * what it says; the row opens to the whole event as indented JSON. `onToggle` hears when it opens or closes (its
 * height changes).
 */
export function eventRow(event: Envelope, onToggle?: (open: boolean) => void, open = false): HTMLElement {
  const full = h('pre', { class: 'event-json', hidden: true });
  const row = h('div', { class: `event-row ${familyOf(event.type)}`, 'data-seq': event.seq });
  const toggle = (): void => {
    const opening = full.hidden;
    if (opening && !full.textContent) full.textContent = JSON.stringify(event, null, 2);
    full.hidden = !opening;
    row.classList.toggle('open', opening);
    button.setAttribute('aria-expanded', String(opening));
    onToggle?.(opening);
  };
  const button = h(
    'button',
    { type: 'button', class: 'event-toggle', 'aria-expanded': 'false', title: 'show the whole event', onclick: toggle },
    '▸',
  );
  row.append(
    h(
      'div',
      {
        class: 'event-line',
        onclick: (e: Event) => {
          // The line opens the row, except where a link or the button was clicked.
          if (!(e.target instanceof Element && e.target.closest('a, button'))) toggle();
        },
      },
      button,
      h('span', { class: 'event-seq mono' }, `#${event.seq}`),
      h('span', { class: 'event-at mono', title: stamp(event.at) }, stamp(event.at).slice(11)),
      // In a cluster (#27): the gateway that wrote it, and (on hover) the stream it wrote it to.
      event.gateway
        ? h('span', { class: 'event-gateway mono', ...(event.stream ? { title: event.stream } : {}) }, event.gateway)
        : null,
      h('span', { class: 'event-type' }, event.type),
      h(
        'span',
        { class: 'event-keys' },
        event.session
          ? h(
              'a',
              { href: `#/sessions/${event.session}`, title: event.session, class: 'session-link' },
              shortId(event.session),
            )
          : null,
        event.turn ? h('a', { href: `#/turn/${event.turn}`, class: 'turn-link', title: event.turn }, event.turn) : null,
      ),
      h('span', { class: 'event-text' }, describe(event)),
    ),
    full,
  );
  if (open) toggle();
  return row;
}
