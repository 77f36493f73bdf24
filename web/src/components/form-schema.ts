// Reading the config's JSON Schema for the form: what kind of editor a field gets, its label and its hint line.
import type { JsonSchema } from '../../../bus/api-shapes.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Path = Array<string | number>;

export type FieldKind = 'boolean' | 'enum' | 'number' | 'text' | 'secret' | 'list' | 'object' | 'record' | 'json';

/** Words a label spells its own way; every other word of a key is written as it is. */
const WORDS: Record<string, string> = {
  api: 'API',
  url: 'URL',
  urls: 'URLs',
  id: 'ID',
  ids: 'IDs',
  mcp: 'MCP',
  mb: 'MB',
  llm: 'LLM',
  ttl: 'TTL',
  bm25: 'BM25',
  secs: 'seconds',
  sec: 'seconds',
  env: 'environment',
  oauth: 'OAuth',
  qr: 'QR',
};

/** Top-level blocks and lists people know by another name than their key. */
const NAMES: Record<string, string> = {
  model_list: 'Models',
  channel_list: 'Channels',
  servers: 'MCP servers',
  list: 'Agents',
  rules: 'Dispatch rules',
  defaults: 'Defaults for every agent',
};

/** `max_tool_iterations` → "Max tool iterations", `api_keys` → "API keys". */
export function labelOf(key: string): string {
  const named = NAMES[key];
  if (named) return named;
  const words = key.split(/[_\s]+/).map((word) => WORDS[word.toLowerCase()] ?? word);
  const [first = '', ...rest] = words;
  return [first.charAt(0).toUpperCase() + first.slice(1), ...rest].join(' ');
}

/** The schema without the "absent" half of an optional union. */
export function resolved(schema: JsonSchema): JsonSchema {
  const options = (schema.anyOf ?? schema.oneOf ?? []).filter((option) => option.type !== 'null');
  return options.length === 1 && options[0] ? { ...options[0], ...without(schema) } : schema;
}

function without({ anyOf: _a, oneOf: _o, ...rest }: JsonSchema): JsonSchema {
  return rest;
}

export function kindOf(raw: JsonSchema): FieldKind {
  const schema = resolved(raw);
  if (schema.writeOnly) return 'secret';
  if (schema.enum) return 'enum';
  switch (schema.type) {
    case 'boolean':
      return 'boolean';
    case 'integer':
    case 'number':
      return 'number';
    case 'string':
      return 'text';
    case 'array':
      return 'list';
    case 'object':
      if (schema.properties && Object.keys(schema.properties).length > 0) return 'object';
      return typeof schema.additionalProperties === 'object' && Object.keys(schema.additionalProperties).length > 0
        ? 'record'
        : 'json';
    default:
      return 'json';
  }
}

function rangeOf(schema: JsonSchema): string | undefined {
  const low = schema.minimum ?? schema.exclusiveMinimum;
  const high = schema.maximum ?? schema.exclusiveMaximum;
  const showHigh = high !== undefined && high < Number.MAX_SAFE_INTEGER;
  if (low !== undefined && showHigh) return `${low} to ${high}`;
  if (low !== undefined) return schema.exclusiveMinimum !== undefined ? `above ${low}` : `${low} or more`;
  return showHigh ? `up to ${high}` : undefined;
}

function shown(value: unknown): string {
  return typeof value === 'string' ? (value === '' ? 'empty' : value) : JSON.stringify(value);
}

/** "Default 20 · 1 to 1000": the facts of a field after its description. */
export function factsOf(raw: JsonSchema): string {
  const schema = resolved(raw);
  const facts: string[] = [];
  const fallback = schema.default;
  const emptyBlock = fallback !== null && typeof fallback === 'object' && Object.keys(fallback).length === 0;
  if (fallback !== undefined && !emptyBlock) facts.push(`default ${shown(fallback)}`);
  const range = rangeOf(schema);
  if (range) facts.push(range);
  if (schema.enum && schema.enum.length > 4) facts.push(`one of ${schema.enum.join(', ')}`);
  return facts.join(' · ');
}

/** A new entry of a list or record: its required fields present and empty, so the form shows what to fill. */
export function blankOf(raw: JsonSchema): Json {
  const schema = resolved(raw);
  switch (kindOf(schema)) {
    case 'boolean':
      return typeof schema.default === 'boolean' ? schema.default : false;
    case 'enum':
      return schema.enum?.[0] ?? '';
    case 'number':
      return typeof schema.default === 'number' ? schema.default : (schema.minimum ?? 0);
    case 'list':
      return [];
    case 'object': {
      const entry: Record<string, Json> = {};
      for (const key of schema.required ?? []) entry[key] = blankOf(schema.properties?.[key] ?? {});
      return entry;
    }
    case 'record':
    case 'json':
      return {};
    default:
      return '';
  }
}
