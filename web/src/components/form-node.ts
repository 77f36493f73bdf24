// The form of any part of the config, drawn from its JSON Schema: objects as groups, lists and records as entries.
import type { JsonSchema } from '../../../bus/api-shapes.js';
import { h } from '../dom.js';
import { listEditor, recordEditor } from './form-entries.js';
import { type FormContext, fieldBox, leafField } from './form-field.js';
import { kindOf, labelOf, resolved, type Json, type Path } from './form-schema.js';
import { getAt, pathName } from './form-value.js';
import { channelSchema, newChannel, whatsappQr } from './form-channel.js';

/** One value of any kind, labelled by its key. */
function member(context: FormContext, schema: JsonSchema, path: Path, key: string, required: boolean): HTMLElement {
  const kind = kindOf(schema);
  if (kind === 'object') {
    return h(
      'fieldset',
      { class: 'group', 'data-path': pathName(path) },
      h('legend', {}, labelOf(key)),
      schema.description ? h('p', { class: 'hint' }, schema.description) : null,
      renderNode(context, schema, path),
    );
  }
  if (kind === 'list' || kind === 'record')
    return fieldBox(path, labelOf(key), resolved(schema), renderNode(context, schema, path));
  return leafField(context, schema, path, key, required);
}

/** A part of the config: an object's fields, a list's or record's entries, or one input. */
export function renderNode(context: FormContext, raw: JsonSchema, path: Path): HTMLElement {
  const schema = channelOf(context, raw, path);
  switch (kindOf(schema)) {
    case 'object': {
      const required = new Set(schema.required ?? []);
      return h(
        'div',
        { class: 'fields' },
        ...Object.entries(schema.properties ?? {}).map(([key, child]) =>
          member(context, child, [...path, key], key, required.has(key)),
        ),
        linksWhatsapp(context, path) ? whatsappQr(String(path[1])) : null,
      );
    }
    case 'list':
      return listEditor(context, schema, path, renderNode);
    case 'record':
      return path.length === 1 && path[0] === 'channel_list'
        ? recordEditor(context, schema, path, renderNode, newChannel(context))
        : recordEditor(context, schema, path, renderNode);
    default:
      return h('div', { class: 'fields' }, leafField(context, schema, path, String(path[path.length - 1] ?? ''), true));
  }
}

/** A channel entry's settings are the common ones and those of its kind (`channel_list.<name>.type`). */
function channelOf(context: FormContext, raw: JsonSchema, path: Path): JsonSchema {
  const schema = resolved(raw);
  if (path.length !== 2 || path[0] !== 'channel_list') return schema;
  const entry = getAt(context.value, path) as { type?: Json } | undefined;
  const type = typeof entry?.type === 'string' && entry.type !== '' ? entry.type : String(path[1]);
  return channelSchema(schema, context.channelKinds[type]);
}

/** A WhatsApp channel that links this machine as a device (`use_native`) has a QR code to scan. */
function linksWhatsapp(context: FormContext, path: Path): boolean {
  if (path.length !== 2 || path[0] !== 'channel_list') return false;
  const entry = getAt(context.value, path) as { type?: Json; settings?: { use_native?: Json } } | undefined;
  return (entry?.type ?? path[1]) === 'whatsapp' && entry?.settings?.use_native === true;
}
