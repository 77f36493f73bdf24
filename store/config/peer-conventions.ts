// zod's classes by name from its core: `z.core` used as a value would bundle the whole core namespace, every locale
// with it.
import * as core from 'zod/v4/core';
import { formatPath } from './problems.js';
import { shapeOf, type SchemaShape } from './schema-shape.js';
import { isRecord, type RawObject } from './raw.js';

type Schema = core.$ZodType;
type Path = Array<string | number>;

/**
 * The peer runtime (Go) reads its config with `encoding/json` over a struct of defaults, so a file written for it
 * relies on Go's zero values: `null` is a nil list or map (empty) and leaves any other field at its default; `0`
 * and `""` mean "unset" wherever a getter falls back to the default; a `FlexibleStringSlice` takes one string or
 * number for a list, and numbers in a list of names. Each convention is read with the peer's meaning and named
 * once, with every path it applied to, as a note.
 */
export type Convention =
  | 'null_list'
  | 'null_map'
  | 'null_default'
  | 'zero_default'
  | 'empty_default'
  | 'single_as_list'
  | 'number_as_text'
  | 'auto_provider';

const MEANINGS: Record<Convention, string> = {
  null_list: 'null read as an empty list',
  null_map: 'null read as an empty map',
  null_default: 'null read as the default',
  zero_default: '0 read as the default',
  empty_default: '"" read as the default (unset)',
  single_as_list: 'a single value read as a one-item list',
  number_as_text: 'numbers in a list of names read as text',
  auto_provider: '"auto" read as the automatic engine choice (provider unset)',
};

/** Where a note about conventions applied is written: `(the peer runtime's Go zero values)`. */
const WHY = "the peer runtime's meaning";

/** Text in any form the schema takes: plain, a closed set of words, or a secret (text or an already wrapped one). */
function isText(schema: Schema): boolean {
  return schema instanceof core.$ZodString || schema instanceof core.$ZodEnum || schema instanceof core.$ZodUnion;
}

/** Whether the number's lower bound lets 0 through (where it does, 0 has a meaning of its own, e.g. "no limit"). */
function allowsZero(schema: Schema): boolean {
  return (schema._zod.def.checks ?? []).every((check) => {
    const def = check._zod.def as { check: string; value?: unknown; inclusive?: boolean };
    if (def.check !== 'greater_than' || typeof def.value !== 'number') return true;
    return def.value < 0 || (def.value === 0 && def.inclusive === true);
  });
}

/** A number as Go's `%.0f` writes it into a `FlexibleStringSlice`. */
const asText = (value: number): string => (Number.isInteger(value) ? String(value) : value.toFixed(0));

class Reader {
  readonly applied = new Map<Convention, string[]>();

  note(convention: Convention, path: Path): void {
    const paths = this.applied.get(convention) ?? [];
    paths.push(formatPath(path));
    this.applied.set(convention, paths);
  }

  /** The value at `key` of `parent`, read with the peer's meaning; changed in place. */
  field(parent: RawObject | unknown[], key: string | number, schema: Schema, path: Path): void {
    const value = (parent as Record<string | number, unknown>)[key];
    const shape = shapeOf(schema);
    const replaced = this.value(value, shape, path);
    if (replaced === value) return;
    if (replaced === OMIT) {
      if (Array.isArray(parent)) return;
      delete parent[key as string];
    } else {
      (parent as Record<string | number, unknown>)[key] = replaced;
    }
  }

  private value(value: unknown, { inner, omittable, defaultValue }: SchemaShape, path: Path): unknown {
    if (value === null) return this.nullValue(inner, omittable, path);
    if (inner instanceof core.$ZodArray) return this.list(value, inner._zod.def.element, path);
    if (inner instanceof core.$ZodNumber && value === 0 && omittable && !allowsZero(inner)) {
      this.note('zero_default', path);
      return OMIT;
    }
    if (isText(inner) && value === '' && omittable && defaultValue !== '') {
      this.note('empty_default', path);
      return OMIT;
    }
    if (inner instanceof core.$ZodObject && isRecord(value)) {
      for (const [key, child] of Object.entries(inner._zod.def.shape))
        if (key in value) this.field(value, key, child, [...path, key]);
    } else if (inner instanceof core.$ZodRecord && isRecord(value)) {
      for (const key of Object.keys(value)) this.field(value, key, inner._zod.def.valueType, [...path, key]);
    }
    return value;
  }

  private nullValue(inner: Schema, omittable: boolean, path: Path): unknown {
    if (inner instanceof core.$ZodArray) {
      this.note('null_list', path);
      return [];
    }
    if (inner instanceof core.$ZodRecord) {
      this.note('null_map', path);
      return {};
    }
    if (!omittable) return null;
    this.note('null_default', path);
    return OMIT;
  }

  private list(value: unknown, element: Schema, path: Path): unknown {
    const item = shapeOf(element).inner;
    // Lists of names are the peer's FlexibleStringSlice; its key lists are not (one key must still be a list).
    const names = isText(item) && !(item instanceof core.$ZodUnion);
    if (!Array.isArray(value)) {
      if (!names || (typeof value !== 'string' && typeof value !== 'number')) return value;
      this.note('single_as_list', path);
      return [typeof value === 'number' ? asText(value) : value];
    }
    if (names && value.some((v) => typeof v === 'number')) {
      this.note('number_as_text', path);
      return value.map((v) => (typeof v === 'number' ? asText(v) : v));
    }
    value.forEach((_, i) => this.field(value, i, element, [...path, i]));
    return value;
  }
}

const OMIT = Symbol('omit');

/** `tools.web.provider: "auto"`: the peer runtime's word for "pick an engine", which unset means here. */
function autoProvider(raw: RawObject, reader: Reader): void {
  const web = isRecord(raw.tools) && isRecord(raw.tools.web) ? raw.tools.web : undefined;
  if (web?.provider !== 'auto') return;
  delete web.provider;
  reader.note('auto_provider', ['tools', 'web', 'provider']);
}

/**
 * Reads `raw` (changed in place) with the peer runtime's zero-value conventions against `schema`; returns one note
 * per convention that applied, naming every path.
 */
export function applyPeerConventions(raw: RawObject, schema: Schema): string[] {
  const reader = new Reader();
  autoProvider(raw, reader);
  const { inner } = shapeOf(schema);
  if (inner instanceof core.$ZodObject) {
    for (const [key, child] of Object.entries(inner._zod.def.shape))
      if (key in raw) reader.field(raw, key, child, [key]);
  }
  return [...reader.applied].map(([convention, paths]) => `${paths.join(', ')}: ${MEANINGS[convention]} (${WHY})`);
}
