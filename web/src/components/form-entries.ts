// Lists and named entries of the config (models, channels, MCP servers, agents, rules): add, edit, remove.
import type { JsonSchema } from '../../../bus/api-shapes.js';
import { h } from '../dom.js';
import { type FormContext, leafInput } from './form-field.js';
import { blankOf, kindOf, resolved, type Json, type Path } from './form-schema.js';
import { getAt, pathName, setAt } from './form-value.js';

export type RenderNode = (context: FormContext, schema: JsonSchema, path: Path) => HTMLElement;

/** What one entry is called on its Add button ("Add model"); others are "entry" or "value". */
const SINGULAR: Record<string, string> = {
  model_list: 'model',
  channel_list: 'channel',
  servers: 'MCP server',
  list: 'agent',
  rules: 'dispatch rule',
  api_keys: 'key',
  entries: 'plugin',
  processes: 'hook',
};

const keyOf = (path: Path): string => String(path[path.length - 1] ?? '');

/** The name people know an entry by: its model name, name or id, else its number. */
function titleOf(entry: Json | undefined, index: number): string {
  if (entry && typeof entry === 'object' && !Array.isArray(entry)) {
    for (const key of ['model_name', 'name', 'id']) {
      const value = entry[key];
      if (typeof value === 'string' && value !== '') return value;
    }
  }
  return `#${index + 1}`;
}

function removeButton(label: string, onclick: () => void): HTMLElement {
  return h('button', { type: 'button', class: 'danger small-button', 'aria-label': label, onclick }, 'Remove');
}

/** A list: objects as cards (each removable), plain values as rows; an Add button appends a blank entry. */
export function listEditor(context: FormContext, raw: JsonSchema, path: Path, render: RenderNode): HTMLElement {
  const items = resolved(resolved(raw).items ?? {});
  const current = getAt(context.value, path);
  const list = Array.isArray(current) ? current : [];
  const what = SINGULAR[keyOf(path)] ?? (kindOf(items) === 'object' ? 'entry' : 'value');
  const rows = list.map((entry, index) => {
    const remove = removeButton(`Remove ${what} ${titleOf(entry, index)}`, () => {
      setAt(context.value, [...path, index], undefined);
      context.changed();
      context.redraw();
    });
    if (kindOf(items) === 'object')
      return h(
        'div',
        { class: 'entry', 'data-path': pathName([...path, index]) },
        h('div', { class: 'entry-head' }, h('h4', {}, titleOf(entry, index)), remove),
        render(context, items, [...path, index]),
      );
    return h(
      'div',
      { class: 'entry-row', 'data-path': pathName([...path, index]) },
      leafInput(context, items, [...path, index], true),
      remove,
    );
  });
  const add = h(
    'button',
    {
      type: 'button',
      class: 'secondary add',
      'data-add': pathName(path),
      onclick: () => {
        setAt(context.value, [...path, list.length], blankOf(items));
        context.changed();
        context.redraw();
      },
    },
    `Add ${what}`,
  );
  return h('div', { class: 'entries' }, ...rows, add);
}

/** Named entries (`channel_list.telegram`): each a card with its name; a name box and Add make a new one. */
export function recordEditor(
  context: FormContext,
  raw: JsonSchema,
  path: Path,
  render: RenderNode,
  newEntry: (name: string) => Json = () => blankOf(entrySchema(raw)),
): HTMLElement {
  const schema = entrySchema(raw);
  const current = getAt(context.value, path);
  const record = current && typeof current === 'object' && !Array.isArray(current) ? current : {};
  const what = SINGULAR[keyOf(path)] ?? 'entry';
  const cards = Object.keys(record).map((name) => {
    const remove = removeButton(`Remove ${what} ${name}`, () => {
      setAt(context.value, [...path, name], undefined);
      context.changed();
      context.redraw();
    });
    const body =
      kindOf(schema) === 'object' || kindOf(schema) === 'record'
        ? render(context, schema, [...path, name])
        : leafInput(context, schema, [...path, name], true);
    return h(
      'div',
      { class: kindOf(schema) === 'object' ? 'entry' : 'entry-row', 'data-path': pathName([...path, name]) },
      h('div', { class: 'entry-head' }, h('h4', {}, name), remove),
      body,
    );
  });
  const nameBox = h('input', {
    type: 'text',
    class: 'new-name',
    'data-new': pathName(path),
    placeholder: `new ${what} name`,
    'aria-label': `Name of the new ${what}`,
    spellcheck: 'false',
  });
  const add = h(
    'button',
    {
      type: 'button',
      class: 'secondary add',
      'data-add': pathName(path),
      onclick: () => {
        const name = nameBox.value.trim();
        if (name === '' || Object.hasOwn(record, name)) {
          nameBox.setCustomValidity(name === '' ? 'type a name first' : `${name} exists already`);
          nameBox.reportValidity();
          return;
        }
        setAt(context.value, [...path, name], newEntry(name));
        context.changed();
        context.redraw();
      },
    },
    `Add ${what}`,
  );
  nameBox.addEventListener('input', () => nameBox.setCustomValidity(''));
  return h('div', { class: 'entries' }, ...cards, h('div', { class: 'add-row' }, nameBox, add));
}

function entrySchema(raw: JsonSchema): JsonSchema {
  const extra = resolved(raw).additionalProperties;
  return typeof extra === 'object' ? resolved(extra) : {};
}
