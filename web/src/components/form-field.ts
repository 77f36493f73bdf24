// One value of the config as an input: a switch, a picker, a number, text, a secret or JSON.
import type { JsonSchema } from '../../../bus/api-shapes.js';
import { h } from '../dom.js';
import { factsOf, kindOf, labelOf, resolved, type Json, type Path } from './form-schema.js';
import { getAt, pathName, setAt } from './form-value.js';

/** What every editor of the form shares: the config being edited and what to do after an edit. */
export type FormContext = {
  value: Json;
  /** After a value changed (at `path`): the raw JSON follows and the config is checked again. */
  changed(path?: Path): void;
  /** After an entry was added or removed: the form is drawn again. */
  redraw(): void;
  channelKinds: Record<string, JsonSchema>;
};

let ids = 0;

/** Text that may wrap after each `/` (a default URL), so a line never ends inside a word of it. */
function breakable(text: string): Array<string | HTMLElement> {
  return text.split(/(?<=\/)/).flatMap((part, index) => (index === 0 ? [part] : [h('wbr'), part]));
}

/** A field's label, input, description and facts; `data-path` is where the check's problems for it are shown. */
export function fieldBox(path: Path, label: string, schema: JsonSchema, input: HTMLElement): HTMLElement {
  const id = input.id || `field-${++ids}`;
  input.id = id;
  const facts = factsOf(schema);
  const inline = input instanceof HTMLInputElement && input.type === 'checkbox';
  return h(
    'div',
    { class: `field${inline ? ' inline' : ''}`, 'data-path': pathName(path) },
    h('label', { for: id }, label),
    input,
    schema.description ? h('p', { class: 'hint' }, schema.description) : null,
    facts ? h('p', { class: 'facts-line' }, ...breakable(facts)) : null,
  );
}

function set(context: FormContext, path: Path, value: Json | undefined): void {
  setAt(context.value, path, value);
  context.changed(path);
}

/** An input for one value; `name` is the config path, so tests and people can find it. */
export function leafInput(context: FormContext, raw: JsonSchema, path: Path, required = false): HTMLElement {
  const schema = resolved(raw);
  const current = getAt(context.value, path);
  const name = pathName(path);
  const fallback = schema.default;
  switch (kindOf(schema)) {
    case 'boolean':
      return h('input', {
        type: 'checkbox',
        name,
        checked: typeof current === 'boolean' ? current : fallback === true,
        onchange: (event) => set(context, path, (event.target as HTMLInputElement).checked),
      });
    case 'enum': {
      const chosen = current ?? fallback ?? '';
      const select = h(
        'select',
        { name, onchange: (event) => set(context, path, (event.target as HTMLSelectElement).value || undefined) },
        required || fallback !== undefined ? null : h('option', { value: '' }, 'not set'),
        ...(schema.enum ?? []).map((option) =>
          h('option', { value: String(option), selected: option === chosen }, String(option)),
        ),
      );
      return select;
    }
    case 'number':
      return h('input', {
        type: 'number',
        name,
        inputmode: schema.type === 'integer' ? 'numeric' : 'decimal',
        step: schema.type === 'integer' ? 1 : 'any',
        min: schema.minimum,
        max: schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER ? schema.maximum : undefined,
        value: typeof current === 'number' ? current : '',
        placeholder: typeof fallback === 'number' ? String(fallback) : '',
        onchange: (event) => {
          const text = (event.target as HTMLInputElement).value.trim();
          set(context, path, text === '' ? undefined : Number(text));
        },
      });
    case 'secret':
      return secretInput(context, path, typeof current === 'string' ? current : '');
    case 'text':
      return h('input', {
        type: 'text',
        name,
        value: typeof current === 'string' ? current : '',
        placeholder: typeof fallback === 'string' ? fallback : '',
        spellcheck: 'false',
        onchange: (event) => {
          const text = (event.target as HTMLInputElement).value;
          set(context, path, text === '' && !required ? undefined : text);
        },
      });
    default:
      return jsonInput(context, path, current ?? (fallback as Json | undefined));
  }
}

/**
 * A secret is never shown, only its mask as a hint: an untouched field sends the mask back, which the launcher
 * reads as "keep the saved one"; whatever is typed replaces it.
 */
function secretInput(context: FormContext, path: Path, mask: string): HTMLElement {
  return h('input', {
    type: 'password',
    name: pathName(path),
    autocomplete: 'new-password',
    class: 'secret',
    placeholder: mask ? `saved (${mask}); type to replace` : 'not set',
    onchange: (event) => {
      const typed = (event.target as HTMLInputElement).value;
      set(context, path, typed === '' ? (mask ? mask : undefined) : typed);
    },
  });
}

function jsonInput(context: FormContext, path: Path, value: Json | undefined): HTMLElement {
  const area = h('textarea', { name: pathName(path), rows: 3, spellcheck: 'false', class: 'json' });
  area.value = value === undefined ? '' : JSON.stringify(value, null, 2);
  area.addEventListener('change', () => {
    if (area.value.trim() === '') return set(context, path, undefined);
    try {
      area.setCustomValidity('');
      set(context, path, JSON.parse(area.value) as Json);
    } catch {
      area.setCustomValidity('not valid JSON');
      area.reportValidity();
    }
  });
  return area;
}

/** A labelled field for a value of an object. */
export function leafField(context: FormContext, schema: JsonSchema, path: Path, key: string, required: boolean) {
  return fieldBox(path, labelOf(key), resolved(schema), leafInput(context, schema, path, required));
}
