// A channel's form: the settings every channel has and those of its kind, and WhatsApp's pairing QR code.
import type { JsonSchema } from '../../../bus/api-shapes.js';
import { getJson } from '../api.js';
import { h, replace } from '../dom.js';
import type { FormContext } from './form-field.js';
import { resolved, type Json, type Path } from './form-schema.js';

/** The entry's schema with `settings` holding its kind's fields first, then the common ones it does not repeat. */
export function channelSchema(entry: JsonSchema, kind: JsonSchema | undefined): JsonSchema {
  const settings = resolved(entry.properties?.settings ?? {});
  if (!kind?.properties) return entry;
  const merged: JsonSchema = { ...settings, properties: { ...kind.properties, ...without(settings, kind) } };
  return { ...entry, properties: { ...entry.properties, settings: merged } };
}

function without(common: JsonSchema, kind: JsonSchema): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(common.properties ?? {}).filter(([key]) => !kind.properties?.[key]));
}

/** A new channel named after a kind is of that kind; it starts enabled, since one adds a channel to use it. */
export function newChannel(context: FormContext): (name: string) => Json {
  return (name) => ({ enabled: true, type: name in context.channelKinds ? name : '', settings: {} });
}

/** Whether an edit changed what a channel's form shows (its kind): then the form is drawn again. */
export const changesKind = (path: Path): boolean =>
  path.length === 3 && path[0] === 'channel_list' && path[2] === 'type';

// WhatsApp replaces its linking code about every 20 s: the form asks for the newest one this often while shown.
const QR_REFRESH_MS = 3000;

/**
 * The QR code a WhatsApp channel linking this machine shows until it is scanned (`/api/channels/:name/qr`), redrawn
 * when the channel emits a new one; `data-qr-at` is the time of the code drawn.
 */
export function whatsappQr(name: string): HTMLElement {
  const box = h('div', { class: 'qr', 'data-qr': name });
  let shownAt: string | undefined;
  const refresh = async (): Promise<void> => {
    const reply = await getJson<{ data_url: string; at: string }>(`/api/channels/${encodeURIComponent(name)}/qr`);
    const at = reply.ok ? reply.body.at : '';
    if (at === shownAt) return;
    shownAt = at;
    box.setAttribute('data-qr-at', at);
    replace(
      box,
      reply.ok
        ? h(
            'figure',
            {},
            h('img', { src: reply.body.data_url, alt: `QR code to link WhatsApp channel ${name}`, width: 220 }),
            h('figcaption', { class: 'hint' }, `Scan in WhatsApp → Linked devices (code of ${reply.body.at})`),
          )
        : h('p', { class: 'hint' }, 'No QR code yet: the running gateway shows one while this channel waits to link.'),
    );
  };
  void refresh();
  // A redrawn form replaces the box: the old one stops asking once it has left the page.
  const timer = setInterval(() => {
    if (box.isConnected) void refresh();
    else if (shownAt !== undefined) clearInterval(timer);
  }, QR_REFRESH_MS);
  return box;
}
