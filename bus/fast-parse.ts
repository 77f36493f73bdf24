import { z } from 'zod';

/** What a fast parser returns for a value it does not accept; the caller then asks zod, which explains why. */
export const DECLINED: unique symbol = Symbol('declined');

/** The value zod would return for `value`, or `DECLINED`. */
export type FastParse = (value: unknown) => unknown;

type Schema = z.core.$ZodType;
type Def = z.core.$ZodTypeDef & {
  checks?: z.core.$ZodCheck[];
  coerce?: boolean;
  catchall?: Schema;
  discriminator?: string;
  unionFallback?: boolean;
};

const { isObject, isPlainObject, allowsEval } = z.core.util;

/**
 * Compiles the zod schema of an event's data into functions that check and copy in one pass, without zod's
 * per-field payloads and issue lists: a turn publishes 17 events, and zod's bookkeeping was most of their
 * validation. A compiled parser accepts only what zod accepts and returns what zod returns (the same
 * copies: objects stripped to their shape, arrays and records copied, `unknown` values shared, defaults
 * applied); whatever it is unsure of it declines, and zod decides. `undefined` for a schema that uses a
 * construct not compiled here (refinements, transforms, string formats ...): zod parses those events.
 */
export function compileFastParse(schema: Schema): FastParse | undefined {
  // Generated code is how both zod's fast path and this one run: a process that forbids it gets zod alone.
  if (!allowsEval.value) return undefined;
  const def = schema._zod.def as Def;
  // A schema that is itself a check (z.int(), z.email()) or coerces is zod's alone.
  if (schema._zod.traits.has('$ZodCheck') || def.coerce) return undefined;
  if (def.type === 'number') return numberParse(def.checks ?? []);
  if (def.checks?.length) return undefined;
  switch (def.type) {
    case 'string':
      return (value) => (typeof value === 'string' ? value : DECLINED);
    case 'boolean':
      return (value) => (typeof value === 'boolean' ? value : DECLINED);
    case 'unknown':
      return (value) => value;
    case 'enum':
    case 'literal':
      return valuesParse(schema);
    case 'optional':
      return optionalParse(def as z.core.$ZodOptionalDef);
    case 'default':
      return defaultParse(def as z.core.$ZodDefaultDef);
    case 'array':
      return arrayParse(def as z.core.$ZodArrayDef);
    case 'object':
      return def.catchall ? undefined : objectParse(def as z.core.$ZodObjectDef);
    case 'record':
      return recordParse(def as z.core.$ZodRecordDef);
    case 'union':
      return def.discriminator === undefined ? primitiveUnionParse(def as z.core.$ZodUnionDef) : taggedUnionParse(def as z.core.$ZodDiscriminatedUnionDef);
    default:
      return undefined;
  }
}

/** The test of a number and its checks as an expression of `v`, or undefined for a check not mirrored here. */
function numberTest(checks: z.core.$ZodCheck[]): string | undefined {
  const tests = ['typeof v === "number"', 'Number.isFinite(v)'];
  for (const check of checks) {
    const c = check._zod.def as z.core.$ZodCheckDef & { format?: string; value?: unknown; inclusive?: boolean; when?: unknown };
    const bound = typeof c.value === 'number' && Number.isFinite(c.value) ? String(c.value) : undefined;
    if (c.when) return undefined;
    if (c.check === 'number_format' && c.format === 'safeint') tests.push('Number.isSafeInteger(v)');
    else if (c.check === 'greater_than' && bound) tests.push(`v ${c.inclusive ? '>=' : '>'} ${bound}`);
    else if (c.check === 'less_than' && bound) tests.push(`v ${c.inclusive ? '<=' : '<'} ${bound}`);
    else return undefined;
  }
  return tests.join(' && ');
}

function numberParse(checks: z.core.$ZodCheck[]): FastParse | undefined {
  const test = numberTest(checks);
  return test === undefined ? undefined : (new Function('D', `return (v) => (${test} ? v : D);`) as (declined: typeof DECLINED) => FastParse)(DECLINED);
}

function valuesParse(schema: Schema): FastParse | undefined {
  const values = schema._zod.values;
  return values ? (value) => (values.has(value as z.core.util.Primitive) ? value : DECLINED) : undefined;
}

function optionalParse(def: z.core.$ZodOptionalDef): FastParse | undefined {
  // An optional default substitutes for absence in ways not mirrored here.
  if (def.innerType._zod.optin === 'defaulted') return undefined;
  const inner = compileFastParse(def.innerType);
  return inner && ((value) => (value === undefined ? undefined : inner(value)));
}

function defaultParse(def: z.core.$ZodDefaultDef): FastParse | undefined {
  const inner = compileFastParse(def.innerType);
  if (!inner) return undefined;
  // `defaultValue` is read on every use, as zod does: it hands out a fresh copy each time.
  return (value) => {
    if (value === undefined) return def.defaultValue;
    const parsed = inner(value);
    return parsed === undefined ? def.defaultValue : parsed;
  };
}

function arrayParse(def: z.core.$ZodArrayDef): FastParse | undefined {
  const element = compileFastParse(def.element);
  if (!element) return undefined;
  return (value) => {
    if (!Array.isArray(value)) return DECLINED;
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item = element(value[i]);
      if (item === DECLINED) return DECLINED;
      out[i] = item;
    }
    return out;
  };
}

interface Field {
  key: string;
  schema: Schema;
  parse: FastParse;
  /** What zod does with the key when the input lacks it. */
  absent: 'omit' | 'default' | 'refuse';
}

function fieldOf(key: string, schema: Schema): Field | undefined {
  const parse = compileFastParse(schema);
  if (!parse || key === '__proto__') return undefined;
  const { optin, optout } = schema._zod;
  if (optin === undefined) return { key, schema, parse, absent: 'refuse' };
  if (optin === 'optional' && optout === 'optional') return { key, schema, parse, absent: 'omit' };
  if (optin === 'defaulted' && optout === undefined) return { key, schema, parse, absent: 'default' };
  return undefined;
}

/**
 * A test of `v` for the schemas whose output is their input (plain strings, booleans, numbers, and those
 * optional), written into an object's parser instead of called.
 */
function inlineTest(schema: Schema): string | undefined {
  const def = schema._zod.def as Def;
  if (schema._zod.traits.has('$ZodCheck') || def.coerce) return undefined;
  if (def.type === 'number') return numberTest(def.checks ?? []);
  if (def.checks?.length) return undefined;
  if (def.type === 'string' || def.type === 'boolean') return `typeof v === "${def.type}"`;
  if (def.type !== 'optional') return undefined;
  const inner = (def as z.core.$ZodOptionalDef).innerType;
  const test = inner._zod.optin === 'defaulted' ? undefined : inlineTest(inner);
  return test && `(v === undefined || ${test})`;
}

/**
 * An object's parser is generated code, as zod's own is: one named read and write per field lets V8 keep
 * each event type's objects on one shape, which calls through a list of fields do not.
 */
function objectParse(def: z.core.$ZodObjectDef): FastParse | undefined {
  const fields: Field[] = [];
  for (const [key, schema] of Object.entries(def.shape)) {
    const field = fieldOf(key, schema);
    if (!field) return undefined;
    fields.push(field);
  }
  const body = fields.map(({ key, absent, schema }, i) => {
    const k = JSON.stringify(key);
    const test = inlineTest(schema);
    const take = test ? `if (!(${test})) return D; out[${k}] = v;` : `v = p[${i}](v); if (v === D) return D; out[${k}] = v;`;
    const whenAbsent = absent === 'omit' ? '' : absent === 'refuse' ? 'return D;' : `out[${k}] = p[${i}](undefined);`;
    // `in`, as zod's own check for presence, so inherited keys count the same.
    return `v = input[${k}]; if (v === undefined && !(${k} in input)) { ${whenAbsent} } else { ${take} }`;
  });
  const source = `return (input) => { if (!isObject(input)) return D; const out = {}; let v; ${body.join('\n')} return out; };`;
  const build = new Function('p', 'D', 'isObject', source) as (parses: FastParse[], declined: typeof DECLINED, objectTest: typeof isObject) => FastParse;
  return build(fields.map((f) => f.parse), DECLINED, isObject);
}

function recordParse(def: z.core.$ZodRecordDef): FastParse | undefined {
  const keyDef = def.keyType._zod.def as Def;
  if (keyDef.type !== 'string' || keyDef.checks?.length || keyDef.coerce || def.keyType._zod.traits.has('$ZodCheck')) return undefined;
  const valueParse = compileFastParse(def.valueType);
  if (!valueParse) return undefined;
  return (value) => {
    if (!isPlainObject(value)) return DECLINED;
    const input = value as Record<PropertyKey, unknown>;
    const out: Record<string, unknown> = {};
    for (const key of Reflect.ownKeys(input)) {
      // Symbol keys, `__proto__` and hidden keys take zod's own rules.
      if (typeof key !== 'string' || key === '__proto__' || !Object.prototype.propertyIsEnumerable.call(input, key)) return DECLINED;
      const parsed = valueParse(input[key]);
      if (parsed === DECLINED) return DECLINED;
      out[key] = parsed;
    }
    return out;
  };
}

/** A union of primitives: which option accepts does not change the value, so the first that does decides. */
function primitiveUnionParse(def: z.core.$ZodUnionDef): FastParse | undefined {
  const primitive = new Set(['string', 'number', 'boolean', 'enum', 'literal']);
  if (!def.options.every((o) => primitive.has((o._zod.def as Def).type))) return undefined;
  const options = def.options.map((o) => compileFastParse(o));
  if (!options.every((o): o is FastParse => o !== undefined)) return undefined;
  return (value) => (options.some((o) => o(value) !== DECLINED) ? value : DECLINED);
}

function taggedUnionParse(def: z.core.$ZodDiscriminatedUnionDef): FastParse | undefined {
  const tag = def.discriminator;
  if (def.unionFallback) return undefined;
  const byTag = new Map<unknown, FastParse>();
  for (const option of def.options) {
    const parse = compileFastParse(option);
    const tags = option._zod.propValues?.[tag];
    if (!parse || !tags) return undefined;
    for (const t of tags) byTag.set(t, parse);
  }
  return (value) => {
    if (!isObject(value)) return DECLINED;
    const parse = byTag.get((value as Record<string, unknown>)[tag]);
    return parse ? parse(value) : DECLINED;
  };
}
